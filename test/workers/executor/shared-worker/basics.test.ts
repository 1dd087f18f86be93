/**
 * The shared-worker executor's basic behaviours: result, logs, host calls, errors with their
 * line, timeout and limits, memory, and runaways ending with a definite outcome, including the
 * ones the operation budget cannot see (a catastrophic regular expression runs in native code).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";

const executor = new SharedWorkerExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });
const namespaces = {
  codemode: {
    add: (args: unknown[]) => (args[0] as number) + (args[1] as number),
    fail: () => {
      throw new RangeError("upstream said no");
    },
  },
};
const normalRun = () =>
  executor.execute({
    code: "let s = 0; for (let i = 0; i < 1000; i++) s += i; return await codemode.add(s, 1)",
    namespaces,
  });

describe("shared-worker executor: results, logs and host calls", () => {
  it("returns the result, the logs and the host calls of a run", async () => {
    const outcome = await executor.execute({
      code: "async () => { console.log('hi', { a: 1 }); const s = await codemode.add(2, 3); return { s, when: new Date(0) } }",
      namespaces,
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({
      status: "ok",
      result: { s: 5, when: new Date(0) },
      logs: [{ level: "log", message: "hi { a: 1 }" }],
      calls: 1,
    });
  });

  it("turns a host failure into an exception the code can catch", async () => {
    const outcome = await executor.execute({
      code: "try { await codemode.fail() } catch (e) { return [e.name, e.message] }",
      namespaces,
    });
    expect(outcome).toMatchObject({ status: "ok", result: ["RangeError", "upstream said no"] });
  });

  it("reports an uncaught host failure at the calling line", async () => {
    const outcome = await executor.execute({
      code: "const a = 1;\n\n  await codemode.fail();",
      namespaces,
    });
    expect(outcome).toMatchObject({
      status: "error",
      error: { name: "RangeError", message: "upstream said no", line: 3 },
    });
  });

  it("reports a thrown error with its line, and a syntax error with its position", async () => {
    const thrown = await executor.execute({
      code: "async () => {\n  const a = 1;\n    throw new Error('boom ' + a);\n}",
    });
    expect(thrown).toMatchObject({ status: "error", error: { message: "boom 1", line: 3 } });
    const syntax = await executor.execute({ code: "const a = ;" });
    expect(syntax).toMatchObject({ status: "error", error: { name: "SyntaxError", line: 1 } });
  });
});

describe("shared-worker executor: limits", () => {
  it("times out code awaiting a promise that never settles, and keeps serving", async () => {
    const outcome = await executor.execute({
      code: "console.log('before'); await new Promise(() => {})",
      limits: { timeoutMs: 300 },
    });
    expect(outcome).toMatchObject({ status: "timeout", error: { name: "TimeoutError" } });
    expect(await normalRun()).toMatchObject({ status: "ok", result: 499501 });
  });

  it("stops at the host call limit", async () => {
    const outcome = await executor.execute({
      code: "for (let i = 0; i < 10; i++) await codemode.add(i, 1)",
      namespaces,
      limits: { maxHostCalls: 3 },
    });
    expect(outcome).toMatchObject({ status: "limit", calls: 3, error: { name: "LimitError" } });
  });

  it("ends a run that allocates past its memory limit, and keeps serving", async () => {
    const small = new SharedWorkerExecutor({ loader: env.LOADER, memoryBytes: 8 * 1_048_576 });
    const outcome = await small.execute({ code: "return 'x'.repeat(32 * 1024 * 1024).length" });
    expect(outcome).toMatchObject({ status: "error", error: { message: /out of memory/ } });
    expect(await normalRun()).toMatchObject({ status: "ok" });
  });

  it("ends a run that keeps ArrayBuffers past its memory limit, each under it (a LimitError)", async () => {
    // QuickJS's limit bounds each allocation alone in its WebAssembly build: 64 buffers of 1 MiB
    // were kept under an 8 MiB limit (sandbox/engine/run.ts, the memory look). Guarded: the
    // program stops by itself at 64.
    const small = new SharedWorkerExecutor({ loader: env.LOADER, memoryBytes: 8 * 1_048_576 });
    const outcome = await small.execute({
      code: "const kept = []; for (let n = 0; n < 64; n++) { try { kept.push(new ArrayBuffer(1048576)); } catch {} } return kept.length",
    });
    expect(outcome).toMatchObject({
      status: "limit",
      error: { name: "LimitError", message: /Memory limit of 8388608 bytes exceeded/ },
    });
    expect(await normalRun()).toMatchObject({ status: "ok" });
  });

  it("ends a run that keeps flat copies of a string, which no charge or walk counts (a LimitError)", async () => {
    // `s = big + n` is a rope, `s.charCodeAt(5)` makes it flat (a 4 MiB copy), in two uncharged
    // steps, and QuickJS's walk counts no rope's parts: 150 were kept under an 8 MiB limit and
    // grew the engine to ~600 MiB. Now the runner's engine grows only to 64 MiB + twice its runs'
    // limits (sandbox/engine/memory-gate.ts) and the refusal stops the run. Guarded: the program
    // stops by itself at 150.
    const small = new SharedWorkerExecutor({ loader: env.LOADER, memoryBytes: 8 * 1_048_576 });
    const outcome = await small.execute({
      code: `const big = "x".repeat(4 * 1048576); const kept = [];
        for (let n = 0; n < 150; n++) { try { const s = big + n; kept.push(s.charCodeAt(5) + s); } catch {} for (let i = 0; i < 200; i++); }
        return kept.length`,
    });
    expect(outcome).toMatchObject({
      status: "limit",
      error: { name: "LimitError", message: /Memory limit of 8388608 bytes exceeded/ },
    });
    expect(await normalRun()).toMatchObject({ status: "ok" });
    // Later runs are charged only what they hold: before, the engine's refused growths above
    // stopped every later run at its first step check as over its limit (the growths were
    // counted for the instance, and each run started counting from zero).
    expect(
      await executor.execute({
        code: "let s = 0; for (let i = 0; i < 2e6; i++) s += i % 7; return s",
      }),
    ).toMatchObject({ status: "ok", result: 5999995 });
    expect(
      await executor.execute({
        code: "let i = 0; while (true) { i++ }",
        limits: { cpuMs: 20, maxOperations: 100_000_000 },
      }),
    ).toMatchObject({ status: "limit", error: { message: /^CPU budget of 20 ms exceeded/ } });
  });

  it("refuses a memory limit out of range at construction", () => {
    expect(() => new SharedWorkerExecutor({ loader: env.LOADER, memoryBytes: 10 })).toThrow(
      /memoryBytes must be an integer/,
    );
  });
});

describe("shared-worker executor: runaways end with a definite outcome", () => {
  it("stops while (true) {} with status limit while another run completes", async () => {
    const [outcome, normal] = await Promise.all([
      executor.execute({ code: "while (true) {}", limits: { maxOperations: 200_000 } }),
      normalRun(),
    ]);
    expect(outcome).toMatchObject({ status: "limit", error: { name: "LimitError" } });
    expect(normal).toMatchObject({ status: "ok", result: 499501 });
  });

  it("stops a catastrophic regular expression (native backtracking) with status limit", async () => {
    const [outcome, normal] = await Promise.all([
      executor.execute({
        code: "return /^(a+)+$/.test('a'.repeat(40) + 'b')",
        limits: { maxOperations: 200_000 },
      }),
      normalRun(),
    ]);
    expect(outcome).toMatchObject({
      status: "limit",
      error: {
        name: "LimitError",
        message: /Operation budget of 200000 exceeded.*regular expression/,
      },
    });
    expect(normal).toMatchObject({ status: "ok", result: 499501 });
  });

  it("ends unbounded recursion with a RangeError", async () => {
    const outcome = await executor.execute({ code: "const f = (n) => f(n + 1) + 1; return f(0)" });
    expect(outcome).toMatchObject({ status: "error", error: { name: "RangeError" } });
  });

  it("survives a run that breaks the engine (native recursion past the host's stack)", async () => {
    const outcome = await executor.execute({
      code: "let o = {}; for (let i = 0; i < 1e5; i++) o = [o]; return JSON.stringify(o).length",
    });
    expect(["error", "limit"]).toContain(outcome.status);
    expect(await normalRun()).toMatchObject({ status: "ok", result: 499501 });
  });
});

describe("shared-worker executor: Web APIs the engine lacks", () => {
  it("has btoa and atob as the per-run isolate does", async () => {
    const outcome = await executor.execute({
      code: "let bad; try { btoa('€') } catch (e) { bad = e.name } return [btoa('hi?'), btoa(''), btoa('ab'), atob('aGk/'), atob(' YW Jj '), atob(btoa('\\u00ff\\u0000x')).length, bad]",
    });
    expect(outcome).toMatchObject({
      status: "ok",
      result: ["aGk/", "", "YWI=", "hi?", "abc", 3, "InvalidCharacterError"],
    });
  });
});
