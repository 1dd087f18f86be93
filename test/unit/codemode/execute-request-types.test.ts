// The `execute` description declares `codemode.request` as TypeScript: the lines it shows must
// type-check as written and give the seed's program, the `response: "full"` form and a typo the
// types a model (or a person) would expect. Compiled with the real TypeScript compiler.
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { executeDescription } from "../../../src/codemode/openapi-tool-descriptions";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { cloudflareSpec } from "../openapi/fixtures";

/** The declaration lines of the description (`type Req …` and the `request` overloads), built once. */
const declarationLines = (() => {
  let lines: { type: string; overloads: string[] } | undefined;
  return (): { type: string; overloads: string[] } => {
    if (lines !== undefined) return lines;
    const text = executeDescription({ spec: loadSpec(cloudflareSpec()), maxResultBytes: 32_768 });
    const all = text.split("\n");
    const type = all.find((line) => line.startsWith("type Req"));
    const overloads = all.filter((line) => /^request[<(]/.test(line));
    if (type === undefined) throw new Error(`no "type Req" line in:\n${text}`);
    return (lines = { type, overloads });
  };
})();

/**
 * Diagnostics of each body compiled against the declared `codemode` (strict). All bodies go into
 * one program, one module each (so none sees another's names): the lib is read once.
 */
function diagnostics<K extends string>(bodies: Record<K, string>): Record<K, string[]> {
  const { type, overloads } = declarationLines();
  const sources = new Map(
    Object.entries<string>(bodies).map(([name, body]) => [
      `${name}.ts`,
      `${type}\ndeclare const codemode: {\n${overloads.join("\n")}\n};\n${body}\nexport {};\n`,
    ]),
  );
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => {
    const source = sources.get(name);
    return source === undefined ? read(name, version) : ts.createSourceFile(name, source, version);
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  const out = Object.fromEntries(Object.keys(bodies).map((name) => [name, [] as string[]]));
  const all = Object.keys(bodies);
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    const owner = d.file?.fileName.replace(/\.ts$/, "");
    // A diagnostic of no body (options, lib) counts against every body.
    for (const name of owner !== undefined && owner in out ? [owner] : all) out[name]!.push(text);
  }
  return out as Record<K, string[]>;
}

const BODIES = {
  seed: `async function seed(zoneId: string) {
  const response = await codemode.request({ method: "GET", path: \`/zones/\${zoneId}/rulesets\` });
  return response.result.map(({ id, name, phase }: { id: string; name: string; phase: string }) => ({ id, name, phase }));
}`,
  full: `async function full() {
  const r = await codemode.request({ method: "GET", path: "/zones", response: "full" });
  const status: number = r.status;
  const ok: boolean = r.ok;
  const link: string | undefined = r.headers["link"];
  // @ts-expect-error a full answer is not the body
  r.result;
  return { status, ok, link, body: r.body };
}`,
  unknownMode: `codemode.request({ method: "GET", path: "/zones", response: "raw" });`,
};

describe("the execute tool's codemode.request declaration", () => {
  let compiled: Record<keyof typeof BODIES, string[]>;
  beforeAll(() => {
    compiled = diagnostics(BODIES);
  });

  it("shows two overloads", () => {
    expect(declarationLines().overloads).toHaveLength(2);
  });

  it("types the seed's program (the body) without errors", () => {
    expect(compiled.seed).toEqual([]);
  });

  it('types response: "full" as { status, ok, headers, body }', () => {
    expect(compiled.full).toEqual([]);
  });

  it("refuses an unknown response mode at compile time", () => {
    expect(compiled.unknownMode.join("\n")).toMatch(/No overload matches this call/);
  });
});
