/**
 * Takes a screenshot of a page of a running Branchpoint in Debian's Chromium:
 *   npx tsx scripts/screenshot.ts <url-path> <out.png> [width] [height] [--click selector]…
 */
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../e2e/chromium";

async function main() {
  const [urlPath = "/sessions", out = "/tmp/shot.png", width = "1400", height = "900", ...rest] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: Number(width), height: Number(height) } });
  const base = process.env.BASE_URL ?? "http://127.0.0.1:3000";
  await page.goto(new URL(urlPath, base).toString(), { waitUntil: "load" });
  for (let i = 0; i < rest.length; i += 2) {
    if (rest[i] === "--click" && rest[i + 1])
      await page
        .locator(rest[i + 1]!)
        .first()
        .click();
  }
  await page.screenshot({ path: out, fullPage: false });
  await browser.close();
  console.log(`wrote ${out}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
