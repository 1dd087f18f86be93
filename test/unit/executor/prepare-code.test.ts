// prepareCode: the program forms it accepts, its errors, and loop/function instrumentation.
import { describe, expect, it } from "vitest";
import {
  MAX_BRACE_DEPTH,
  prepareCode,
  type PreparedCode,
} from "../../../src/executor/prepare-code";
import { preludeFunction } from "../../../src/executor/prelude-function";
import { uninstrumentedSites } from "../../helpers/executor/instrumentation-check";

function ok(code: string): PreparedCode {
  const prepared = prepareCode(code);
  if (!prepared.ok) throw new Error(`expected ok, got ${prepared.message}`);
  return prepared;
}

describe("prepareCode forms", () => {
  it("accepts an async arrow function as the default export", () => {
    const p = ok("async () => { return 1; }");
    expect(p.form).toBe("function");
    expect(p.module).toContain("export default async () =>");
  });
  it("accepts a parenthesized function expression", () => {
    expect(ok("(async function () { return 1 })").form).toBe("function");
  });
  it("wraps a function body and returns the final expression", () => {
    const p = ok("const a = await codemode.x();\na.length");
    expect(p.form).toBe("body");
    expect(p.module).toMatch(/export default async function __cm\$main\(\) \{__cm\$t\(\);const a/);
    expect(p.module).toContain("return a.length");
  });
  it("keeps an explicit module with export default", () => {
    const p = ok("const k = 2;\nexport default async () => k;");
    expect(p.form).toBe("module");
  });
  it("exports a lone function declaration", () => {
    expect(ok("async function main() { return 3 }").form).toBe("declaration");
  });
  it("extracts the first fenced block and keeps line numbers", () => {
    const p = ok("Here you go:\n```javascript\nasync () => 1\n```\nthanks");
    expect(p.form).toBe("function");
    expect(p.source.split("\n")).toHaveLength(5);
    expect(p.source.split("\n")[2]).toBe("async () => 1");
  });
  it("strips TypeScript types and keeps line numbers", () => {
    const p = ok(
      "async () => {\n  const x: number = 1;\n  interface A { b: string }\n  return x as number;\n}",
    );
    expect(p.strippedTypes).toBe(true);
    expect(p.source.split("\n")).toHaveLength(5);
  });
});

describe("prepareCode errors", () => {
  it("reports a syntax error with line and column", () => {
    const p = prepareCode("async () => {\n  const = 1;\n}");
    expect(p).toMatchObject({ ok: false, name: "SyntaxError", line: 2, column: 9 });
    // The position is in the fields only: the tool result prints it after the message, once.
    expect(!p.ok && p.message).toBe("Unexpected token");
  });
  it("refuses imports, dynamic import and reserved names with positions", () => {
    expect(prepareCode("\nimport fs from 'fs'")).toMatchObject({
      ok: false,
      line: 2,
      column: 1,
      message: expect.stringMatching(/Import statements are not available/),
    });
    expect(prepareCode("await import('cloudflare:sockets')")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Dynamic import/),
    });
    expect(prepareCode("const __cm$t = () => {}")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/reserved/),
    });
    expect(prepareCode("export const a = 1")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Only `export default`/),
    });
  });
  it("refuses empty code with a hint", () => {
    expect(prepareCode("  \n ")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/empty/),
    });
  });
});

describe("instrumentation", () => {
  const samples = [
    "while (true) {}",
    "for (;;) {}",
    "for (;;) for (;;) x++;",
    "do x++; while (true)",
    "for (const a of b) if (a) continue; else break;",
    "for (const k in o) {}",
    "outer: for (;;) { inner: while (1) { continue outer } }",
    "const f = () => f(); f()",
    "const g = async (x) => ({ x }); const h = x => x => x;",
    "function r() { return r() } r()",
    "class A { m() { return 1 } get p() { return 2 } static s = () => 3 }",
    "try { a() } catch (e) { b() } finally { c() }",
    "try { a() } catch { }",
    "const o = { m() {}, async *gen() { yield 1 } }",
    "async () => { for await (const x of y) {} }",
  ];
  it.each(samples)(
    "puts a tick at the start of every loop, function, catch and finally: %s",
    (code) => {
      const p = ok(code);
      expect(uninstrumentedSites(p.module)).toEqual([]);
    },
  );
});

describe("nesting", () => {
  // acorn reads every open block scope for each name it parses, so a 64 KiB program nested 2,000
  // blocks deep held the host's thread ~380 ms to parse (13 ms flat). The parse now ends at the
  // first brace past the limit, before the deep part is paid for.
  const nested = (depth: number, tail = "") =>
    `async () => { let a = 0; ${"{".repeat(depth)}a++;${"}".repeat(depth)} return a; }${tail}`;

  it(`accepts ${MAX_BRACE_DEPTH} levels of braces`, () => {
    // The function's own body is one of them.
    expect(ok(nested(MAX_BRACE_DEPTH - 1)).form).toBe("function");
  });

  it("refuses one more, at the brace past the limit, without parsing the rest", () => {
    // The syntax error after the deep part is never reached: the parse ended at the brace.
    const prepared = prepareCode(`${nested(2_000, " )")}`);
    expect(prepared).toMatchObject({ ok: false, name: "SyntaxError", line: 1 });
    if (prepared.ok) return;
    expect(prepared.message).toContain(`more than ${MAX_BRACE_DEPTH} levels deep`);
    expect(prepared.column).toBe("async () => { let a = 0; ".length + MAX_BRACE_DEPTH);
  });

  it("counts template expressions and object literals too", () => {
    const templates = `async () => ${"`${".repeat(MAX_BRACE_DEPTH + 1)}1${"}`".repeat(MAX_BRACE_DEPTH + 1)}`;
    const objects = `async () => ${"({a:".repeat(MAX_BRACE_DEPTH + 1)}1${"})".repeat(MAX_BRACE_DEPTH + 1)}`;
    for (const code of [templates, objects]) {
      const prepared = prepareCode(code);
      expect(prepared.ok ? "prepared" : prepared.message).toContain("levels deep");
    }
  });

  it("refuses it in TypeScript as well, without a second parse of types stripped", () => {
    const prepared = prepareCode(
      `async (): Promise<number> => { ${"{".repeat(MAX_BRACE_DEPTH)}${"}".repeat(MAX_BRACE_DEPTH)} return 1 }`,
    );
    expect(prepared.ok ? "prepared" : prepared.message).toContain("levels deep");
  });

  it("refuses it in a skill's function (an import's code is parsed by the host too)", () => {
    const fn = preludeFunction(nested(MAX_BRACE_DEPTH + 1));
    expect(fn.ok ? "prepared" : fn.message).toContain("levels deep");
    expect(preludeFunction(nested(MAX_BRACE_DEPTH - 1)).ok).toBe(true);
  });
});
