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
// The end-to-end suite as one report (npm run test:e2e) or as the shards npm test runs.
const e2eReports = ["test-results/e2e.json", "test-results/e2e-1.json", "test-results/e2e-2.json"].filter(existsSync);
if (e2eReports.length) {
  const e2e = { passed: 0, failed: 0 };
  for (const file of e2eReports) {
    const s = JSON.parse(readFileSync(file, "utf8")).stats;
    e2e.passed += s.expected + s.flaky;
    e2e.failed += s.unexpected;
    skipped += s.skipped;
  }
  passed += e2e.passed;
  failed += e2e.failed;
  rows.push(`e2e: ${e2e.passed} passed, ${e2e.failed} failed`);
}
for (const line of readFileSync("test-results/checks.txt", "utf8").split("\n").filter(Boolean)) {
  const [result, ...name] = line.split(" ");
  if (["typecheck", "lint", "format"].includes(name.join(" "))) {
    if (result === "pass") passed += 1;
    else failed += 1;
    rows.push(`${name.join(" ")}: ${result === "pass" ? "passed" : "failed"}`);
  } else if (result === "fail" && /^e2e shard \d$/.test(name.join(" "))) {
    // A shard's failing tests are in its report; a shard that wrote none (its server did not start) fails here.
    if (!existsSync(`test-results/e2e-${name.at(-1)}.json`)) {
      failed += 1;
      rows.push(`${name.join(" ")}: failed before any test ran`);
    }
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
