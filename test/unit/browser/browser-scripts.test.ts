/**
 * The status page's browser scripts (browser/console.ts, browser/search-form.ts): the texts the
 * build step generates are pinned byte for byte (test/golden/*-script.txt; regenerate with
 * `UPDATE_GOLDEN=1 npx vitest run --project unit test/unit/browser`), the Worker inlines exactly
 * those texts, and each is one classic script that cannot end its <script> element early. Their
 * behaviour in a real browser is the e2e status-page, runs-console and status-page-layout
 * scripts' (Chromium).
 */
import { describe, expect, it } from "vitest";
import { bundleBrowserScripts } from "../../../scripts/bundle-browser-scripts.mjs";
import { CONSOLE_SCRIPT, SEARCH_FORM_SCRIPT } from "../../../src/app/generated/browser-scripts";
import { golden } from "../../helpers/golden";

const built = await bundleBrowserScripts();
const GOLDENS = {
  "console-script.txt": built.CONSOLE_SCRIPT,
  "search-form-script.txt": built.SEARCH_FORM_SCRIPT,
};

describe("the status page's browser scripts", () => {
  it.each(Object.entries(GOLDENS))("%s matches its golden text", async (name, text) => {
    await golden(name, text);
  });

  it("are what the build step wrote (test/workers/app/status/status-page.test.ts: what the page serves)", () => {
    expect({ CONSOLE_SCRIPT, SEARCH_FORM_SCRIPT }).toEqual(built);
  });

  it.each(Object.entries(built))(
    "%s is one classic script: no import or export left, the whole in one function scope",
    (_, text) => {
      expect(text).toMatch(/^"use strict";\n\(\(\) => \{\n/);
      expect(text.trimEnd()).toMatch(/\n\}\)\(\);$/);
      expect(text).not.toMatch(/^\s*(import|export)\s/m);
      expect(text).not.toMatch(/<\/script/i);
    },
  );
});
