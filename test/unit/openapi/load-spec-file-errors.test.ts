/**
 * cli/product/load-spec-file.mjs on files that are not OpenAPI documents (issue #32): each failure
 * names where (a line and column in the text, or a JSON pointer) and the rule, instead of a
 * parser's bare "is not a valid Openapi API definition".
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSpecFile } from "../../../cli/product/load-spec-file.mjs";
import { findSpecProblems } from "../../../src/openapi/check-spec";

const dir = mkdtempSync(join(tmpdir(), "load-spec-file-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function message(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  writeFileSync(file, text);
  const loaded = await loadSpecFile(file, findSpecProblems);
  if (loaded.ok) throw new Error(`${name} loaded`);
  return loaded.message;
}

describe("loadSpecFile on what is not an OpenAPI document", () => {
  it("malformed YAML: line, column and the YAML rule", async () => {
    expect(await message("a.yaml", "openapi: 3.0.3\ninfo: {title: x\n  version: 1\n")).toContain(
      "line 3, column 10: missed comma between flow collection entries (rule: YAML syntax)",
    );
  });

  it("malformed JSON: line, column and the JSON rule", async () => {
    expect(await message("b.json", '{\n  "openapi": "3.0.3",\n  "info": }\n')).toContain(
      "line 3, column 11: Unexpected token '}' (rule: JSON syntax)",
    );
    expect(await message("c.json", '{"openapi": "3.0.3"')).toContain(
      "line 1, column 20: Expected ',' or '}' after property value (rule: JSON syntax)",
    );
  });

  it("JSON that is not OpenAPI: the root pointer and the rule", async () => {
    expect(await message("package.json", '{ "name": "x", "version": "1.0.0" }')).toContain(
      '#: must have the property "openapi" (3.x) or "swagger" (2.0); it has name, version (rule: required)',
    );
    expect(await message("list.json", "[1, 2]")).toContain(
      "#: the document is an array, not an object (rule: type)",
    );
    expect(
      await message("v4.yaml", 'openapi: "4.0"\ninfo: { title: x, version: "1" }\npaths: {}\n'),
    ).toContain('#/openapi: "4.0" is not a supported version: 2.0, 3.0.x or 3.1.x (rule: enum)');
  });
});
