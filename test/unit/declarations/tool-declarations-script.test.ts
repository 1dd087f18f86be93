// The build-time tool declarations step (scripts/tool-declarations.mjs, the run-time emitter) on
// the fixture tool set: golden output, valid TypeScript, and exactly the run-time emitter's
// declarations (types exported). Regenerate with UPDATE_GOLDEN=1.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { toolDeclarations } from "../../../src/declarations/tool-declarations";
import { FIXTURE_TOOLS } from "./tool-fixtures";
import { dtsDiagnostics } from "../../helpers/compile-dts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const GOLDEN = join(ROOT, "test/golden/fixture-tools.build.d.ts");

function runScript(): { text: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), "tool-decls-"));
  const input = join(dir, "tools.json");
  const out = join(dir, "tools.d.ts");
  writeFileSync(input, JSON.stringify({ tools: FIXTURE_TOOLS }));
  const stderr = execFileSync(
    process.execPath,
    ["scripts/tool-declarations.mjs", "--tools", input, "--out", out],
    { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  return { text: readFileSync(out, "utf8"), stderr };
}

describe("npm run declarations:tools", () => {
  const { text } = runScript();

  it("matches the golden file", () => {
    if (process.env["UPDATE_GOLDEN"] === "1") writeFileSync(GOLDEN, text);
    expect(text).toBe(readFileSync(GOLDEN, "utf8"));
  });

  it("compiles under tsc with full checking", () => {
    expect(dtsDiagnostics([GOLDEN])).toEqual([]);
  });

  it("uses the run-time emitter's method and type names", () => {
    const runtime = toolDeclarations(FIXTURE_TOOLS);
    for (const tool of runtime.tools) {
      expect(text).toContain(`  ${tool.identifier}(input`);
      for (const type of tool.types.filter((t) => /(Input|Output)$/.test(t)))
        expect(text).toMatch(new RegExp(`export (interface|type) ${type}\\b`));
    }
  });

  it("is exactly the run-time emitter's text, its types exported", () => {
    const runtime = toolDeclarations(FIXTURE_TOOLS).text;
    expect(text.replace(/^export (interface|type) /gm, "$1 ")).toContain(runtime);
  });

  it("fails with a clear message on bad input", () => {
    expect(() =>
      execFileSync(process.execPath, ["scripts/tool-declarations.mjs"], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    ).toThrow(/give exactly one of --tools <file> or --url/);
  });
});
