/**
 * The desktop-client configs users copy are the ones the npx e2e test starts (test/e2e/npx-bin.mjs
 * runs test/e2e/support/desktop-config.json, the installed command, with the registry unreachable,
 * and desktop-config-npx.json, the `npx` alternative, with their placeholders replaced): the README
 * shows the installed one and docs/clients.md both, verbatim as ```json blocks, so what users copy
 * is what CI ran, and the installed command first (issue #42: it needs no registry at launch; npx
 * does).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");
const jsonBlocks = (page: string) =>
  [...read(page).matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

describe("desktop-client snippets", () => {
  const readme = jsonBlocks("README.md");
  const clients = jsonBlocks("docs/clients.md");
  const installed = read("test/e2e/support/desktop-config.json").trim();
  const npx = read("test/e2e/support/desktop-config-npx.json").trim();

  it("the README shows test/e2e/support/desktop-config.json verbatim, and not the npx one", () => {
    expect(
      readme.includes(installed),
      "README.md needs a ```json block with test/e2e/support/desktop-config.json's exact text",
    ).toBe(true);
    expect(readme.includes(npx), "the README's desktop path is the installed command").toBe(false);
  });

  it("docs/clients.md shows both verbatim, the installed command first, npx as the alternative", () => {
    expect(
      clients.includes(installed),
      "docs/clients.md needs a ```json block with test/e2e/support/desktop-config.json's exact text",
    ).toBe(true);
    expect(
      clients.includes(npx),
      "docs/clients.md needs a ```json block with test/e2e/support/desktop-config-npx.json's exact text",
    ).toBe(true);
    expect(JSON.parse(installed).mcpServers["my-api"].command).toBe("code-mode-mcp");
    expect(clients.indexOf(installed)).toBeLessThan(clients.indexOf(npx));
  });
});
