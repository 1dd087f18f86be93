/**
 * The README's desktop-client configs are the ones the npx e2e test starts (test/e2e/npx-bin.mjs
 * runs test/e2e/support/desktop-config.json, the installed command, with the registry unreachable,
 * and desktop-config-npx.json, the `npx` alternative, with their placeholders replaced): the
 * README must show those files verbatim, as ```json blocks, so what users copy is what CI ran, and
 * the installed command first (issue #42: it needs no registry at launch; npx does).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");

describe("README desktop-client snippets", () => {
  const blocks = [...read("README.md").matchAll(/```json\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.trim(),
  );
  const installed = read("test/e2e/support/desktop-config.json").trim();
  const npx = read("test/e2e/support/desktop-config-npx.json").trim();

  it("are test/e2e/support/desktop-config.json and desktop-config-npx.json, verbatim", () => {
    expect(
      blocks.includes(installed),
      "README.md needs a ```json block with test/e2e/support/desktop-config.json's exact text",
    ).toBe(true);
    expect(
      blocks.includes(npx),
      "README.md needs a ```json block with test/e2e/support/desktop-config-npx.json's exact text",
    ).toBe(true);
  });

  it("shows the installed command first, npx as the alternative", () => {
    expect(JSON.parse(installed).mcpServers["my-api"].command).toBe("code-mode-mcp");
    expect(blocks.indexOf(installed)).toBeLessThan(blocks.indexOf(npx));
  });
});
