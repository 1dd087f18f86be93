// The runs table's program column: the first line that says what the program does (issue #42).
import { describe, expect, it } from "vitest";
import { PREVIEW_CHARS, programPreview } from "../../../src/app/runs/program-preview";

describe("programPreview", () => {
  it.each([
    [
      "async () => {\n  const s = await codemode.spec();\n  return 1;\n}",
      "const s = await codemode.spec();",
    ],
    ["async() => {\n\n  // find the DNS operations\n  return 1;\n}", "// find the DNS operations"],
    ["export default async () => {\n  return 2;\n}", "return 2;"],
    ["async function () {\n  return 3;\n}", "return 3;"],
    [
      "```js\nasync () => {\n  return codemode.request({ method: 'GET', path: '/zones' });\n}\n```",
      "return codemode.request({ method: 'GET', path: '/zones' });",
    ],
    ["async () => 1", "async () => 1"],
    [
      "return Object.keys((await codemode.spec()).paths).length",
      "return Object.keys((await codemode.spec()).paths).length",
    ],
    ["async () => {\n}", "async () => {"],
    ["", ""],
  ])("%j → %j", (code, preview) => {
    expect(programPreview(code)).toBe(preview);
  });

  it("keeps at most PREVIEW_CHARS characters", () => {
    expect(programPreview(`async () => {\n  return "${"x".repeat(500)}";\n}`)).toHaveLength(
      PREVIEW_CHARS,
    );
  });
});
