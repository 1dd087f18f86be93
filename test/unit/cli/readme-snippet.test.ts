/**
 * The README's desktop-client config is the one the npx e2e test starts (test/e2e/npx-bin.mjs
 * runs test/e2e/support/desktop-config.json with its placeholders replaced): the README must show that
 * file verbatim, as a ```json block, so what users copy is what CI ran.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");

describe("README desktop-client snippet", () => {
  it("is test/e2e/support/desktop-config.json, verbatim", () => {
    const snippet = read("test/e2e/support/desktop-config.json").trim();
    const blocks = [...read("README.md").matchAll(/```json\n([\s\S]*?)```/g)].map((m) =>
      m[1]!.trim(),
    );
    expect(
      blocks.includes(snippet),
      "README.md needs a ```json block with test/e2e/support/desktop-config.json's exact text",
    ).toBe(true);
  });
});
