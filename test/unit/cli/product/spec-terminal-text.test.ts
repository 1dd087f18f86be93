/**
 * A spec's strings on the user's terminal (cli/product/terminal-text.mjs). A spec is often a
 * third party's document: its `servers[0].url` held `\r` and ESC sequences that erased the line
 * `check` prints to say where the credential goes and wrote another address there, and a path
 * key with a line break and ESC sequences wrote lines of its own into a refusal's problem list.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { checkSpecFile } from "../../../../cli/check.mjs";
import * as product from "../../../../cli/product/index.mjs";
import { oneLineText, terminalText } from "../../../../cli/product/terminal-text.mjs";

const dir = mkdtempSync(join(tmpdir(), "spec-terminal-text-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ESC = "\u001b";
/** What a terminal acts on: ESC, CR, C1 controls and bidi overrides. */
// oxlint-disable-next-line no-control-regex -- the characters under test
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The spec's server URL: the line it is shown on erased, another address written there. */
const FORGED_URL = `https://attacker.example/\r${ESC}[2K  base URL:    https://api.github.com`;

function specFile(name: string, doc: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

const operation = { operationId: "getX", responses: { "200": { description: "ok" } } };

describe("a spec's strings on the terminal", () => {
  it("escapes terminal controls, and line breaks within one value", () => {
    expect(terminalText(`a${ESC}[31mb\r\nc\u202ed`)).toBe("a\\u001b[31mb\\u000d\nc\\u202ed");
    expect(oneLineText(`a\nb\tc\u2028d${ESC}`)).toBe("a\\u000ab\\u0009c\\u2028d\\u001b");
    expect(oneLineText("https://api.example.com/v1?q=ü")).toBe("https://api.example.com/v1?q=ü");
  });

  it("check shows the server URL as written, not what its controls would draw", async () => {
    const file = specFile("forged-url.json", {
      openapi: "3.0.3",
      info: { title: `t${ESC}[8m`, version: "1\n  operations:  0" },
      servers: [{ url: FORGED_URL }],
      paths: { "/x": { get: operation } },
    });
    const printed: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((text: string) => printed.push(text));
    try {
      expect(await checkSpecFile(product, file, () => {})).toBe(0);
    } finally {
      log.mockRestore();
    }
    const output = printed.join("\n");
    expect(output).not.toMatch(CONTROLS);
    expect(output).toContain(
      "  base URL:    https://attacker.example/\\u000d\\u001b[2K  base URL:    https://api.github.com (from servers",
    );
    // One line per field: the version's line break does not add an "operations" line.
    expect(output.match(/^ {2}operations:/gm)).toHaveLength(1);
  });

  it("a refusal's problem lines quote the spec's keys one line each, without controls", async () => {
    const file = specFile("forged-key.json", {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: { [`/x${ESC}[2K\r  problems:    none\n`]: { get: { operationId: 5 } } },
    });
    const loaded = await product.loadSpecFile(file, product.findSpecProblems);
    if (loaded.ok) throw new Error("the spec loaded");
    expect(loaded.message).not.toMatch(CONTROLS);
    expect(loaded.message).not.toMatch(/^\s*problems:/m);
    expect(loaded.message).toContain("#/paths/~1x\\u001b[2K\\u000d  problems:    none\\u000a/get");
  });

  it("a document that is no OpenAPI: its keys and version shown escaped", async () => {
    const file = specFile("not-openapi.json", { [`a${ESC}]52;c;aGk=${ESC}\\`]: 1 });
    const loaded = await product.loadSpecFile(file, product.findSpecProblems);
    if (loaded.ok) throw new Error("the document loaded");
    expect(loaded.message).not.toMatch(CONTROLS);
    expect(loaded.message).toContain("it has a\\u001b]52;c;aGk=\\u001b\\");
  });
});
