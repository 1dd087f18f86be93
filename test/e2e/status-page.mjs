// Done-when (4): the status page in headless Chromium (Debian `chromium`): it renders the counts,
// and the search form returns a result. Saves a screenshot to test/.artifacts/status-page.png.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { requireChromium, withPage } from "./support/browser.mjs";
import { check, withServer } from "./support/server.mjs";

requireChromium("status-page");
const artifacts = fileURLToPath(new URL("../.artifacts/", import.meta.url));
mkdirSync(artifacts, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), "codemode-chromium-"));

try {
  await withServer({}, async ({ url }) => {
    await withPage(profile, { width: 1100, height: 1600 }, async (page) => {
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
    });
  });
} finally {
  rmSync(profile, { recursive: true, force: true });
}
