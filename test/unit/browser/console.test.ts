/**
 * The run console's browser script (browser/console.ts): the text the build step generates is
 * pinned byte for byte (test/golden/console-script.txt; regenerate with
 * `UPDATE_GOLDEN=1 npx vitest run --project unit test/unit/browser`), the Worker inlines exactly
 * that text, and it is one classic script that cannot end its <script> element early. Its
 * behaviour in a real browser is the e2e runs-console and status-page scripts' (Chromium).
 */
import { describe, expect, it } from "vitest";
import { bundleConsoleScript } from "../../../scripts/bundle-console-script.mjs";
import { CONSOLE_SCRIPT } from "../../../src/app/generated/console-script";
import { consoleSection } from "../../../src/app/runs/console-section";
import { golden } from "../../helpers/golden";

describe("the run console script", () => {
  it("matches its golden text", async () => {
    await golden("console-script.txt", await bundleConsoleScript());
  });

  it("is what the build step wrote and the status page inlines", async () => {
    expect(CONSOLE_SCRIPT).toBe(await bundleConsoleScript());
    const html = consoleSection({ enabled: true, needsToken: false });
    expect(html).toContain(`<script>${CONSOLE_SCRIPT}</script>`);
    expect(html.match(/<\/script/gi)).toHaveLength(1);
  });

  it("is one classic script: no import or export left, the whole in one function scope", () => {
    expect(CONSOLE_SCRIPT).toMatch(/^"use strict";\n\(\(\) => \{\n/);
    expect(CONSOLE_SCRIPT.trimEnd()).toMatch(/\n\}\)\(\);$/);
    expect(CONSOLE_SCRIPT).not.toMatch(/^\s*(import|export)\s/m);
  });
});
