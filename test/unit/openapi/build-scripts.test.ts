// The build-time Node steps, run as the build runs them: a child process under this Node.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { measureToolsList } from "../../../cli/product/tools-list-tokens.mjs";
import { oasExamplePath } from "./fixtures";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const run = (script: string, args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, "scripts", script), ...args], {
    encoding: "utf8",
    cwd: ROOT,
  });

describe("scripts/compile-spec.mjs", () => {
  it("compiles YAML 3.0 and JSON 2.0 specs into loadable compact forms", () => {
    const dir = mkdtempSync(join(tmpdir(), "specs-"));
    const out = mkdtempSync(join(tmpdir(), "compact-"));
    copyFileSync(oasExamplePath("3.0/yaml/circular.yaml"), join(dir, "circular.yaml"));
    copyFileSync(oasExamplePath("2.0/json/petstore.json"), join(dir, "petstore.json"));
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ specs: [] }));
    const result = run("compile-spec.mjs", [dir, "--out", out]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const petstore = loadSpec(readFileSync(join(out, "petstore.json"), "utf8"));
    expect(petstore.operationById("addPet")?.requestBody).toBeDefined();
    const circular = loadSpec(readFileSync(join(out, "circular.json"), "utf8"));
    expect(circular.compact.cycles).toEqual([["#/components/schemas/ErrorMessage"]]);
    const index = readFileSync(join(out, "specs.ts"), "utf8");
    expect(index).toContain('"petstore": "{');
    expect(index).not.toContain('"manifest"');
  }, 60_000);

  it("records each spec's /mcp tools/list o200k count, as check measures it, and rewrites nothing unchanged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "specs-"));
    const out = mkdtempSync(join(tmpdir(), "compact-"));
    copyFileSync(oasExamplePath("2.0/json/petstore.json"), join(dir, "petstore.json"));
    const first = run("compile-spec.mjs", [dir, "--out", out]);
    expect(first.stderr).toBe("");
    const measured = await measureToolsList(readFileSync(join(out, "petstore.json"), "utf8"));
    expect(first.stdout).toContain(`tools/list ${measured.tokens} o200k tokens`);
    const index = readFileSync(join(out, "specs.ts"), "utf8");
    const counts = { tokens: measured.tokens, tools: measured.perTool };
    expect(index).toContain(`${JSON.stringify(measured.digest)}: ${JSON.stringify(counts)},`);
    const written = statSync(join(out, "specs.ts")).mtimeMs;
    expect(run("compile-spec.mjs", [dir, "--out", out]).status).toBe(0);
    expect(statSync(join(out, "specs.ts")).mtimeMs).toBe(written);
  }, 60_000);

  it("fails on an invalid spec naming the file, the JSON pointer and the rule", () => {
    const dir = mkdtempSync(join(tmpdir(), "bad-"));
    writeFileSync(
      join(dir, "broken.yaml"),
      [
        "openapi: 3.0.3",
        "info: { title: Broken, version: '1' }",
        "paths:",
        "  /owners:",
        "    post:",
        "      operationId: 5",
        "",
      ].join("\n"),
    );
    const result = run("compile-spec.mjs", [dir, "--out", mkdtempSync(join(tmpdir(), "out-"))]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("broken.yaml: invalid OpenAPI 3.0.3 document");
    expect(result.stderr).toContain(
      "#/paths/~1owners/post: must have required property 'responses' (rule: required)",
    );
    expect(result.stderr).toContain(
      "#/paths/~1owners/post/operationId: must be string (rule: type)",
    );
  }, 60_000);

  it("locates a broken $ref", () => {
    const dir = mkdtempSync(join(tmpdir(), "ref-"));
    const schema = { $ref: "#/components/schemas/Nope" };
    const spec = {
      openapi: "3.0.3",
      info: { title: "x", version: "1" },
      paths: {
        "/a": {
          get: {
            responses: {
              "200": { description: "ok", content: { "application/json": { schema } } },
            },
          },
        },
      },
    };
    writeFileSync(join(dir, "badref.json"), JSON.stringify(spec));
    const result = run("compile-spec.mjs", [dir, "--out", mkdtempSync(join(tmpdir(), "out-"))]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("badref.json: cannot be loaded");
    expect(result.stderr).toContain(
      `#/paths/~1a/get/responses/200/content/application~1json/schema: $ref "#/components/schemas/Nope" points to nothing (rule: $ref)`,
    );
  }, 60_000);
});

describe("scripts/declarations.mjs (the run-time emitter)", () => {
  it("names types like the run-time emitter", () => {
    const result = run("declarations.mjs", [oasExamplePath("3.0/yaml/circular.yaml")]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("export interface ErrorMessage {");
    expect(result.stdout).toContain("inner?: ErrorMessage;");
    expect(result.stdout).toContain("export interface GetAnythingRequest {");
    expect(result.stdout).toContain('"GET /anything": {');
  }, 60_000);
});
