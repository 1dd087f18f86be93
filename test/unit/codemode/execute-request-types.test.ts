// The `execute` description declares `codemode.request` as TypeScript: the lines it shows must
// type-check as written and give the seed's program, the `response: "full"` form and a typo the
// types a model (or a person) would expect. Compiled with the real TypeScript compiler.
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { executeDescription } from "../../../src/codemode/openapi-tool-descriptions";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { cloudflareSpec } from "../openapi/fixtures";

/** The declaration lines of the description (`type Req …` and the `request` overloads). */
function declarationLines(): { type: string; overloads: string[] } {
  const text = executeDescription({ spec: loadSpec(cloudflareSpec()), maxResultBytes: 32_768 });
  const lines = text.split("\n");
  const type = lines.find((line) => line.startsWith("type Req"));
  const overloads = lines.filter((line) => /^request[<(]/.test(line));
  if (type === undefined) throw new Error(`no "type Req" line in:\n${text}`);
  return { type, overloads };
}

/** Diagnostics of `body` compiled against the declared `codemode` (strict). */
function diagnostics(body: string): string[] {
  const { type, overloads } = declarationLines();
  const source = `${type}\ndeclare const codemode: {\n${overloads.join("\n")}\n};\n${body}\nexport {};\n`;
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) =>
    name === "program.ts" ? ts.createSourceFile(name, source, version) : read(name, version);
  const program = ts.createProgram(["program.ts"], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("the execute tool's codemode.request declaration", () => {
  it("shows two overloads", () => {
    expect(declarationLines().overloads).toHaveLength(2);
  });

  it("types the seed's program (the body) without errors", () => {
    expect(
      diagnostics(`async function seed(zoneId: string) {
  const response = await codemode.request({ method: "GET", path: \`/zones/\${zoneId}/rulesets\` });
  return response.result.map(({ id, name, phase }: { id: string; name: string; phase: string }) => ({ id, name, phase }));
}`),
    ).toEqual([]);
  });

  it('types response: "full" as { status, ok, headers, body }', () => {
    expect(
      diagnostics(`async function full() {
  const r = await codemode.request({ method: "GET", path: "/zones", response: "full" });
  const status: number = r.status;
  const ok: boolean = r.ok;
  const link: string | undefined = r.headers["link"];
  // @ts-expect-error a full answer is not the body
  r.result;
  return { status, ok, link, body: r.body };
}`),
    ).toEqual([]);
  });

  it("refuses an unknown response mode at compile time", () => {
    const errors = diagnostics(
      `codemode.request({ method: "GET", path: "/zones", response: "raw" });`,
    );
    expect(errors.join("\n")).toMatch(/No overload matches this call/);
  });
});
