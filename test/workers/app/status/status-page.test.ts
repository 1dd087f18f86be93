// The status page at / (src/app/status-page.ts) serves the browser scripts built from browser/
// exactly as generated, each inline once (the e2e status-page scripts run them in Chromium).
import { describe, expect, it } from "vitest";
import { CONSOLE_SCRIPT, SEARCH_FORM_SCRIPT } from "../../../../src/app/generated/browser-scripts";
import { configured } from "../helpers";

describe("the status page", () => {
  it("inlines the search form's and the run console's scripts, as built", async () => {
    for (const settings of [{}, { MCP_API_KEY: "status-page-test-key-0123" }]) {
      const html = await (await configured(settings)("http://localhost/")).text();
      expect(html).toContain(`<script>${SEARCH_FORM_SCRIPT}</script>`);
      expect(html).toContain(`<script>${CONSOLE_SCRIPT}</script>`);
      // The third: the skills section's (src/app/skills/skills-console.ts).
      expect(html.match(/<script>/g)).toHaveLength(3);
    }
  });

  it("refuses to be framed: its run console and skills buttons act with the page's own Origin", async () => {
    // A page that frames the status page could lead a user to click its buttons (cancel a run,
    // delete or import a skill): the frame sends this server's Origin, so the cross-site check
    // (src/app/cross-site.ts) lets those requests through (attack8).
    const res = await configured({})("http://localhost/");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});
