// Done-when (4): the status page in headless Chromium (Debian `chromium`): it renders the counts,
// and the search form returns a result. Saves a screenshot to test/.artifacts/status-page.png.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { check, withServer } from "./support/server.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(CHROMIUM))
  throw new Error(
    `e2e status-page: ${CHROMIUM} is missing. Fix: apt-get update && apt-get install -y chromium (.ci/run does this).`,
  );
const artifacts = fileURLToPath(new URL("../.artifacts/", import.meta.url));
mkdirSync(artifacts, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), "codemode-chromium-"));

try {
  await withServer({}, async ({ url }) => {
    // A persistent context on a new empty profile folder (playwright's way of --user-data-dir).
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      viewport: { width: 1100, height: 1600 },
      headless: true,
      timeout: 60_000,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(60_000);
      await page.goto(`${url}/`, { waitUntil: "load" });
      const operations = (await page.textContent("#spec-operations"))?.trim();
      check(operations === "13", `the page shows ${operations} operations`);
      const tools = await page.$$eval("table.tools code", (cells) =>
        cells.map((c) => c.textContent),
      );
      check(
        ["search", "execute", "code"].every((t) => tools.includes(t)),
        `tools on the page: ${tools}`,
      );
      await page.click("#search-run");
      await page.waitForSelector(
        '#search-result[data-state="ok"], #search-result[data-state="error"]',
      );
      const result = (await page.textContent("#search-result")) ?? "";
      check(
        (await page.getAttribute("#search-result", "data-state")) === "ok",
        `search form → ${result}`,
      );
      check(result.includes("/tasks/{taskId}"), `search form → ${result.slice(0, 300)}`);
      await page.screenshot({ path: join(artifacts, "status-page.png"), fullPage: true });
      console.log(
        `e2e status-page: counts rendered, search form returned ${result.split("\n").length} lines; screenshot in test/.artifacts/ — ok`,
      );
    } finally {
      await browser.close();
    }
  });
} finally {
  rmSync(profile, { recursive: true, force: true });
}
