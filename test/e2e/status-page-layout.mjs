// issue #32: the status page with runs in it, in headless Chromium (Debian `chromium`), shows none
// of the layout defects users saw: the duration chart's top label inside the chart (a 3-digit
// "ms" label lost its first digit), the outcome legend clear of every bar, a long program and a
// long result wrapped inside the page (no horizontal scrolling), and a favicon. At 1280 and 390 px
// (issue #42): no sideways scrolling, no word broken mid-letter, program lines that say something;
// the skills table (issue #44) with long names, long descriptions, HTML in them and a long last
// error: shown as text, inside the page.
// Saves screenshots to test/.artifacts/status-page-layout*.png.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { requireChromium, withPage } from "./support/browser.mjs";
import { check, withServer } from "./support/server.mjs";

requireChromium("status-page-layout");
const artifacts = fileURLToPath(new URL("../.artifacts/", import.meta.url));
mkdirSync(artifacts, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), "codemode-chromium-"));

/** A program with a 600-character line that returns a 3,000-character word, and takes ≥ 400 ms. */
const LONG = `async () => {
  // ${"a-very-long-comment-".repeat(30)}
  await new Promise((resolve) => setTimeout(resolve, 450));
  return "${"x".repeat(3000)}";
}`;

/** A 64-character skill name (the longest allowed) and untrusted text with markup in it. */
const LONG_NAME = "summarizeOpenIssuesByAuthorAcrossEveryRepositoryPageAndJoinThem1";
const HTML_TEXT = "<b>bold</b> <img src=x onerror=alert(1)> <script>alert(2)</script>";
const SAVE_SKILLS = `async () => {
  const byAuthor = async ({ n }) => n + (await codemode.list_projects({})).projects.length;
  const wide = async (n) => n * 2;
  await skills.save({ name: "${LONG_NAME}", description: ${JSON.stringify(
    `${HTML_TEXT} Counts open issues per author over every page of every repository, then joins each author with their profile. `.repeat(
      5,
    ),
  )}, input: { type: "object", properties: { n: { type: "number" } } }, run: byAuthor });
  await skills.save({ name: "wide", description: "A token: ${"https://example.com/".padEnd(180, "x")}", input: { type: "number" }, run: wide });
  return 1;
}`;

try {
  await withServer({}, async ({ url }) => {
    const client = new Client(
      { name: "e2e-layout", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    await client.callTool({ name: "search", arguments: { code: "async () => 1" } });
    await client.callTool({ name: "search", arguments: { code: LONG } });
    await client.callTool({
      name: "execute",
      arguments: { code: "async () => { throw new Error('no') }" },
    });
    await client.close();
    const code = new Client(
      { name: "e2e-layout", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await code.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/code`)));
    await code.callTool({ name: "code", arguments: { code: "async () => 2" } });
    const saved = /** @type {any} */ (
      await code.callTool({ name: "code", arguments: { code: SAVE_SKILLS } })
    );
    check(
      !saved.isError && (saved.content.at(-1)?.text.match(/^Saved skill /gm) ?? []).length === 2,
      `saving the skills: ${JSON.stringify(saved.content)}`,
    );
    // A last error with markup and a long word.
    await code.callTool({
      name: "code",
      arguments: {
        code: 'async () => { await skills.wide(1); const lt = "<"; const m = lt + "i>failed" + lt + "/i> " + "y".repeat(300); throw new Error(m); }',
      },
    });
    await code.close();

    const favicon = await fetch(`${url}/favicon.ico`);
    check(
      favicon.status === 200 && favicon.headers.get("content-type") === "image/svg+xml",
      `/favicon.ico → ${favicon.status} ${favicon.headers.get("content-type")}`,
    );

    await withPage(profile, { width: 1000, height: 1400 }, async (page) => {
      await page.goto(`${url}/`, { waitUntil: "load" });
      await page.waitForSelector("#chart-outcomes .bar");
      await page.waitForSelector("#chart-durations .point");
      // Browser code as text: it runs in the page, where the DOM types this script lacks exist.
      /** @type {{ label: string, labelLeft: number, chartLeft: number, bars: number, legend: number, overlaps: number }} */
      const layout = await page.evaluate(`(() => {
        const box = (el) => el.getBoundingClientRect();
        const chart = document.getElementById("chart-durations");
        const label = chart.querySelector(".axis-max");
        const bars = [...document.querySelectorAll("#chart-outcomes .bar")].map(box);
        const legend = [...document.querySelectorAll("#chart-outcomes .legend")].map(box);
        const overlaps = legend.filter((l) =>
          bars.some((b) => l.left < b.right && b.left < l.right && l.top < b.bottom && b.top < l.bottom),
        ).length;
        return {
          label: label.textContent,
          labelLeft: box(label).left,
          chartLeft: box(chart).left,
          bars: bars.length,
          legend: legend.length,
          overlaps,
        };
      })()`);
      check(/^\d{3,}/.test(layout.label ?? ""), `the top label is "${layout.label}", not ≥ 100 ms`);
      check(
        layout.labelLeft >= layout.chartLeft,
        `the top label "${layout.label}" starts at ${layout.labelLeft}, left of the chart (${layout.chartLeft})`,
      );
      check(layout.bars >= 3 && layout.legend >= 3, `bars ${layout.bars}, legend ${layout.legend}`);
      check(layout.overlaps === 0, `${layout.overlaps} legend entries lie over a bar`);
      await page.screenshot({ path: join(artifacts, "status-page-layout.png"), fullPage: true });

      // The long run's detail: its program and result wrap inside the page.
      const rows = page.locator("#runs-table tbody tr");
      const count = await rows.count();
      let opened = false;
      for (let i = 0; i < count && !opened; i++) {
        await rows.nth(i).click();
        await page.waitForTimeout(300);
        const result = (await page.textContent("#run-result")) ?? "";
        opened = result.includes("x".repeat(100));
      }
      check(opened, "no run's detail shows the long result");
      /** @type {{ scroll: number, client: number }} */
      const widths = await page.evaluate(
        "({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })",
      );
      check(
        widths.scroll <= widths.client,
        `the page scrolls sideways: ${widths.scroll} px of content in ${widths.client} px`,
      );
      await page.screenshot({
        path: join(artifacts, "status-page-layout-run.png"),
        fullPage: true,
      });
      console.log(
        `e2e status-page-layout: label "${layout.label}" inside the chart, legend clear of ${layout.bars} bars, long run wraps, favicon — ok; screenshots in test/.artifacts/`,
      );

      // issue #42: at a desktop and a phone width, nothing scrolls the page sideways and no word
      // is broken across lines ("outco me"), the runs and a run's detail included.
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 1400 });
        await page.goto(`${url}/`, { waitUntil: "load" });
        await page.waitForSelector('#runs-table[data-state="loaded"]');
        await page.locator("#runs-table tbody tr").first().click();
        await page.waitForSelector('#run-detail[data-state="loaded"]');
        await page.click("#skills-load");
        await page.waitForSelector('#skills-table[data-state="loaded"]');
        /** @type {{ rows: number, markup: number, texts: string, right: number, cellRight: number, client: number }} */
        const skillsTable = await page.evaluate(`(() => {
          const table = document.getElementById("skills-table");
          const cells = [...table.querySelectorAll("tbody td")];
          const wrap = table.parentElement.getBoundingClientRect();
          return {
            rows: table.querySelectorAll("tbody tr").length,
            markup: table.querySelectorAll("tbody img, tbody b, tbody i, tbody script").length,
            texts: cells.map((c) => c.textContent).join("\\n"),
            right: wrap.right,
            // Every cell: descriptions and errors wrapped inside the table's box, not as wide as their text.
            cellRight: Math.max(...cells.map((c) => c.getBoundingClientRect().right)),
            client: document.documentElement.clientWidth,
          };
        })()`);
        check(
          skillsTable.rows === 2,
          `at ${width} px the skills table has ${skillsTable.rows} rows`,
        );
        check(
          skillsTable.markup === 0 &&
            skillsTable.texts.includes("<b>bold</b>") &&
            skillsTable.texts.includes("<i>failed</i>") &&
            skillsTable.texts.includes("v1 code only"),
          `at ${width} px skill text is not shown as text: ${skillsTable.markup} elements`,
        );
        check(
          skillsTable.right <= skillsTable.client + 1,
          `at ${width} px the skills table ends at ${skillsTable.right} px, past the page's ${skillsTable.client}`,
        );
        check(
          width !== 1280 || skillsTable.cellRight <= skillsTable.right + 1,
          `at ${width} px the skills table's cells end at ${skillsTable.cellRight} px, past its box (${skillsTable.right} px): it scrolls`,
        );
        /** @type {{ scroll: number, client: number, broken: string[], previews: string[] }} */
        const seen = await page.evaluate(`(() => {
          const broken = [];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const host = node.parentElement;
            // Program text, results and logs wrap long tokens on purpose.
            if (!host || host.closest("pre, ol.program, textarea, script, style, svg")) continue;
            if (host.getClientRects().length === 0) continue;
            // A line may end after a hyphen or a slash ("code-mode-" / "mcp"): only a run of
            // letters split inside is a broken word.
            for (const m of node.textContent.matchAll(/[^\\s\\/-]+/g)) {
              if (m[0].length > 40) continue; // a long token may wrap where it must
              const range = document.createRange();
              range.setStart(node, m.index);
              range.setEnd(node, m.index + m[0].length);
              const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
              if (tops.size < 2) continue;
              // Where the line ends inside the token: a break between two letters or digits is
              // a broken word; one next to punctuation (after a quote or an angle bracket) is a line break the
              // browser may make.
              const topAt = (i) => {
                const r = document.createRange();
                r.setStart(node, m.index + i);
                r.setEnd(node, m.index + i + 1);
                return Math.round(r.getBoundingClientRect().top);
              };
              for (let i = 1; i < m[0].length; i++)
                if (topAt(i) !== topAt(i - 1) && /[\\p{L}\\p{N}]/u.test(m[0][i]) && /[\\p{L}\\p{N}]/u.test(m[0][i - 1])) {
                  broken.push(m[0]);
                  break;
                }
            }
          }
          const previews = [...document.querySelectorAll("#runs-table tbody tr td:last-child")].map((td) => td.textContent);
          return { scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth, broken, previews };
        })()`);
        await page.screenshot({
          path: join(artifacts, `status-page-layout-${width}.png`),
          fullPage: true,
        });
        check(
          seen.scroll <= seen.client,
          `at ${width} px the page scrolls sideways: ${seen.scroll} px of content in ${seen.client} px`,
        );
        check(
          seen.broken.length === 0,
          `at ${width} px words break mid-letter: ${JSON.stringify(seen.broken.slice(0, 10))}`,
        );
        check(
          seen.previews.length > 0 && seen.previews.every((p) => p !== "async () => {"),
          `the runs table shows a wrapper line as a program: ${JSON.stringify(seen.previews)}`,
        );
        const facts = (await page.textContent("#run-facts")) ?? "";
        check(!/\b1 (host calls|operations|result bytes)\b/.test(facts), `plurals: ${facts}`);
        console.log(
          `e2e status-page-layout: at ${width} px no sideways scroll, no word broken mid-letter, program lines shown, skills table as text inside the page — ok`,
        );
      }
    });
  });

  // With an API key: one key box for the page, and a hint where the charts need the key.
  const KEY = "layout-e2e-key-0123456789abcdef";
  await withServer({ MCP_API_KEY: KEY }, async ({ url }) => {
    await withPage(profile, { width: 1000, height: 1400 }, async (page) => {
      await page.goto(`${url}/`, { waitUntil: "load" });
      const boxes = await page.locator('input[type="password"]').count();
      check(boxes === 1, `${boxes} key boxes on the page, not one`);
      const hints = await page.locator("svg.chart text.hint").allTextContents();
      check(
        hints.length === 2 && hints.every((h) => h.includes("API key")),
        `chart hints: ${JSON.stringify(hints)}`,
      );
      await page.screenshot({
        path: join(artifacts, "status-page-layout-key.png"),
        fullPage: true,
      });
      await page.fill("#page-key", KEY);
      await page.click("#search-run");
      await page.waitForSelector(
        '#search-result[data-state="ok"], #search-result[data-state="error"]',
      );
      check(
        (await page.getAttribute("#search-result", "data-state")) === "ok",
        `search with the page's key → ${await page.textContent("#search-result")}`,
      );
      await page.click("#runs-load");
      await page.waitForSelector(
        '#runs-table[data-state="loaded"], #runs-table[data-state="error"]',
      );
      check(
        (await page.getAttribute("#runs-table", "data-state")) === "loaded",
        `runs with the page's key → ${await page.textContent("#runs-status")}`,
      );
      console.log(
        "e2e status-page-layout: with an API key, one key box serves search and runs, charts hint at the key — ok",
      );
    });
  });
} finally {
  rmSync(profile, { recursive: true, force: true });
}
