// WorkerLoaderExecutor: code forms, host functions, console capture and errors in the real sandbox.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HostNamespaces } from "../../../src/executor/types";
import { describeExecutors } from "../../helpers/executor/executor-matrix";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

  const projects = [
    { id: "p1", status: "active" },
    { id: "p2", status: "archived" },
    { id: "p3", status: "active" },
  ];
  const namespaces: HostNamespaces = {
    codemode: {
      list_projects: ([input]) =>
        projects.filter((p) => p.status === (input as { status: string }).status),
      echo: (args) => args,
      blob: ([size]) => new Uint8Array(size as number).fill(0xa5),
      fail: () => {
        throw new RangeError("upstream said no");
      },
    },
    math: { double: ([n]) => (n as number) * 2 },
  };

  describe("code forms", () => {
    it.each([
      [
        "async arrow function",
        "async () => { const ps = await codemode.list_projects({ status: 'active' }); return ps.map(p => p.id); }",
      ],
      [
        "function body",
        "const ps = await codemode.list_projects({ status: 'active' });\nreturn ps.map(p => p.id);",
      ],
      ["final expression", "(await codemode.list_projects({ status: 'active' })).map(p => p.id)"],
      [
        "fenced block",
        "```js\nasync () => (await codemode.list_projects({ status: 'active' })).map(p => p.id)\n```",
      ],
      [
        "export default",
        "const pick = (ps) => ps.map(p => p.id);\nexport default async () => pick(await codemode.list_projects({ status: 'active' }));",
      ],
      [
        "TypeScript",
        "async (): Promise<string[]> => {\n  type P = { id: string };\n  const ps: P[] = await codemode.list_projects({ status: 'active' });\n  return ps.map((p: P) => p.id);\n}",
      ],
    ])("runs the %s form", async (_label, code) => {
      const outcome = await executor.execute({ code, namespaces });
      expect(outcome).toMatchObject({ status: "ok", result: ["p1", "p3"], calls: 1 });
    });
  });

  describe("host functions", () => {
    it("exposes several namespaces", async () => {
      const outcome = await executor.execute({
        code: "return await math.double(await math.double(5))",
        namespaces,
      });
      expect(outcome).toMatchObject({ status: "ok", result: 20, calls: 2 });
    });
    it("passes binary and rich values both ways", async () => {
      const code =
        "const [b, d, m] = await codemode.echo(new Uint8Array([0, 255, 7]), new Date(0), new Map([['k', 1n]]));\nreturn { isBytes: b instanceof Uint8Array, bytes: [...b], year: d.getUTCFullYear(), big: m.get('k') * 2n, raw: b };";
      const outcome = await executor.execute({ code, namespaces });
      expect(outcome.status).toBe("ok");
      const result = outcome.result as Record<string, unknown>;
      expect(result).toMatchObject({ isBytes: true, bytes: [0, 255, 7], year: 1970, big: 2n });
      expect(result["raw"]).toEqual(new Uint8Array([0, 255, 7]));
    });
    // The sandbox's decoding of bytes once spent the program's budget (~13.6 operations a byte,
    // sandbox/codec.ts), so a binary answer over ~1.4 MiB ended the run on the default budget.
    // The shared worker's engine then still decoded its base64 in the interpreter (~0.5 s a MiB;
    // a 4 MiB answer spent its whole default budget): now the bytes cross beside the text.
    it("hands a large binary answer over without spending the program's budget", async () => {
      const size = 4 * 1_048_576;
      const outcome = await executor.execute({
        code: `const b = await codemode.blob(${size}); return [b.byteLength, b[0], b[b.length - 1]];`,
        namespaces,
      });
      expect(outcome).toMatchObject({ status: "ok", result: [size, 0xa5, 0xa5] });
      expect(outcome.operations).toBeLessThan(1_000_000);
    });
    // The e2e's random kind (test/e2e/heavy-bodies.mjs): on the shared worker the fourth body's
    // base64 decoding ended the run on the default budget before.
    it("hands four 4 MiB binary answers to one run on the default budget", async () => {
      const size = 4 * 1_048_576;
      const outcome = await executor.execute({
        code: `let n = 0; for (let i = 0; i < 4; i++) { const b = await codemode.blob(${size}); n += b.byteLength + b[${size - 1}]; } return n;`,
        namespaces,
      });
      expect(outcome.error).toBeUndefined();
      expect(outcome).toMatchObject({ status: "ok", result: 4 * (size + 0xa5) });
    });
    it("passes bytes longer than the codec's pieces both ways unchanged", async () => {
      // 20,000 bytes cross three pieces of 6,144 and a short last one each way (sandbox/codec.ts).
      const code =
        "const sent = new Uint8Array(20000).map((_, i) => (i * 7 + (i >> 8)) & 255);\nconst [back] = await codemode.echo(sent);\nlet same = back.length === sent.length;\nfor (let i = 0; same && i < sent.length; i++) same = back[i] === sent[i];\nreturn same;";
      const outcome = await executor.execute({ code, namespaces });
      expect(outcome).toMatchObject({ status: "ok", result: true });
    });
    it("turns a failing host function into an exception the code can catch", async () => {
      const outcome = await executor.execute({
        code: "try { await codemode.fail(); } catch (e) { return `${e.name}: ${e.message}`; }",
        namespaces,
      });
      expect(outcome).toMatchObject({ status: "ok", result: "RangeError: upstream said no" });
    });
    it("reports an uncaught host failure as an error outcome at the calling line", async () => {
      const outcome = await executor.execute({
        code: "const a = 1;\nawait codemode.fail();",
        namespaces,
      });
      expect(outcome).toMatchObject({
        status: "error",
        error: { name: "RangeError", message: "upstream said no", line: 2 },
      });
    });
    it("gives unknown functions a clear TypeError", async () => {
      const outcome = await executor.execute({ code: "await codemode.nope()", namespaces });
      expect(outcome).toMatchObject({
        status: "error",
        error: {
          name: "TypeError",
          message: expect.stringMatching(/codemode\.nope is not a function/),
        },
      });
    });
    it("aborts on the host a call still pending when the run ends", async () => {
      let observedAbort: Promise<boolean> | undefined;
      const slow: HostNamespaces = {
        codemode: {
          echo: (args) => args,
          slow: (_args, { signal }) => {
            observedAbort = new Promise((resolve) =>
              signal.addEventListener("abort", () => resolve(true)),
            );
            return new Promise((resolve) => setTimeout(() => resolve("late"), 2_000));
          },
        },
      };
      const outcome = await executor.execute({
        code: "codemode.slow(); await codemode.echo(); return 'done without awaiting'",
        namespaces: slow,
      });
      // The slow call reached the host (calls are delivered in order) and was aborted at the end.
      expect(outcome).toMatchObject({ status: "ok", result: "done without awaiting", calls: 2 });
      expect(await observedAbort).toBe(true);
    });
    it("refuses a call made after the run ended: it never reaches the host", async () => {
      let late = 0;
      const counting: HostNamespaces = { codemode: { late: () => ++late } };
      const outcome = await executor.execute({
        code: "setTimeout(() => codemode.late().catch(() => {}), 20); return 'returned first'",
        namespaces: counting,
      });
      expect(outcome).toMatchObject({ status: "ok", result: "returned first", calls: 0 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(late).toBe(0);
    });
    it("refuses invalid namespace names as an outcome, not an exception", async () => {
      const outcome = await executor.execute({ code: "1", namespaces: { "not valid": {} } });
      expect(outcome).toMatchObject({ status: "error", error: { name: "CodeModeError" } });
    });
  });

  describe("console capture", () => {
    it("formats objects, errors and cycles readably, in order, with levels", async () => {
      const code =
        "const a = { id: 1, list: [1, 2] }; a.self = a;\nconsole.log('row', a);\nconsole.warn(new TypeError('careful'));\nconsole.error(new Map([['k', { v: true }]]));\nawait codemode.echo(1);\nconsole.info('after call');\nreturn 1;";
      const outcome = await executor.execute({ code, namespaces });
      expect(outcome.logs).toEqual([
        { level: "log", message: "row { id: 1, list: [1, 2], self: [Circular] }" },
        { level: "warn", message: "TypeError: careful" },
        { level: "error", message: 'Map(1) { "k" => { v: true } }' },
        { level: "info", message: "after call" },
      ]);
    });
  });

  describe("errors", () => {
    it("reports a syntax error as an outcome with the position in the user's code", async () => {
      const outcome = await executor.execute({ code: "async () => {\n  const x = ;\n}" });
      expect(outcome).toMatchObject({
        status: "error",
        error: { name: "SyntaxError", line: 2, column: 13 },
      });
    });
    it("reports a thrown error with its line and column", async () => {
      const outcome = await executor.execute({
        code: "async () => {\n  const a = 1;\n    throw new Error('boom ' + a);\n}",
      });
      expect(outcome).toMatchObject({
        status: "error",
        error: { name: "Error", message: "boom 1", line: 3, column: 11 },
      });
    });
    it("reports a thrown non-error value", async () => {
      const outcome = await executor.execute({ code: "throw { code: 42 }" });
      expect(outcome).toMatchObject({
        status: "error",
        error: { name: "Error", message: 'Non-error thrown: {"code":42}' },
      });
    });
  });
});
