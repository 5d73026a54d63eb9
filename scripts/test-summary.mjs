// Sums the suites' JSON reports (vitest, Playwright) and the checks into the
// line CI reads: "N passed, N failed".
import { existsSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
const rows = [];

for (const [label, file] of [
  ["unit", "test-results/unit.json"],
  ["database", "test-results/db.json"],
]) {
  if (!existsSync(file)) continue;
  const r = JSON.parse(readFileSync(file, "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + r.numTodoTests;
  rows.push(`${label}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
}
if (existsSync("test-results/e2e.json")) {
  const s = JSON.parse(readFileSync("test-results/e2e.json", "utf8")).stats;
  passed += s.expected + s.flaky;
  failed += s.unexpected;
  skipped += s.skipped;
  rows.push(`e2e: ${s.expected + s.flaky} passed, ${s.unexpected} failed`);
}
for (const line of readFileSync("test-results/checks.txt", "utf8").split("\n").filter(Boolean)) {
  const [result, ...name] = line.split(" ");
  if (["typecheck", "lint", "format"].includes(name.join(" "))) {
    if (result === "pass") passed += 1;
    else failed += 1;
    rows.push(`${name.join(" ")}: ${result === "pass" ? "passed" : "failed"}`);
  } else if (result === "fail" && !/tests|build/.test(name.join(" "))) {
    failed += 1;
    rows.push(`${name.join(" ")}: failed`);
  } else if (result === "fail" && name.join(" ") === "production build") {
    failed += 1;
    rows.push("production build: failed");
  }
}
console.log("\n" + rows.join("\n"));
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 ? 1 : 0);
