/**
 * The shared worker's two runaway holds (issue #19): a program that catches its own stack
 * overflow and recurses again (the engine builds a ~1,000-frame trace per overflow, about 1 ms,
 * for one or two operations), and slow built-ins between the engine's step checks (one
 * `'x'.repeat(1e5)` is one step and about 1 ms). Both must end with a definite `limit` while the
 * worker keeps serving. Every probe first passes the instrumentation guard of runaway.test.ts.
 * Before the fix each probe here ran from 38 s to hours (the operation budgets below are chosen
 * so the old engine would still finish, after the test's own timeout); no elapsed time is
 * asserted beyond that timeout.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { prepareCode } from "../../../src/executor/prepare-code";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker/shared-worker-executor";
import { uninstrumentedSites } from "../../helpers/instrumentation-check";

const executor = new SharedWorkerExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

/** Refuses to go on unless every loop, function and catch of `code` is instrumented. */
function guard(code: string): string {
  const prepared = prepareCode(code);
  if (!prepared.ok) throw new Error(`probe does not parse: ${prepared.message}`);
  const missing = uninstrumentedSites(prepared.module);
  if (missing.length > 0)
    throw new Error(`refusing to run a probe that could hang workerd: ${missing.join(", ")}`);
  return code;
}

/** A probe the old engine held for longer than this fails by timeout (each ends in ~1 s now). */
const HELD_MS = 20_000;

const alive = async () =>
  expect(await executor.execute({ code: "return 'alive'" })).toMatchObject({ result: "alive" });

describe("shared worker: a program that catches its own stack overflow ends", () => {
  it.each([
    ["recursing again from the catch", "const f = () => { try { f() } catch (e) { f() } }; f()"],
    ["with a catch without binding", "const f = () => { try { f() } catch { f() } }; f()"],
    [
      "with a destructuring catch",
      "const f = () => { try { f() } catch ({ message }) { f() } }; f()",
    ],
    ["in a loop", "const f = () => f(); while (true) { try { f() } catch (e) {} }"],
  ])(
    "%s, with status limit",
    async (_label, code) => {
      const outcome = await executor.execute({
        code: guard(code),
        limits: { maxOperations: 200_000 },
      });
      expect(outcome).toMatchObject({ status: "limit", error: { name: "LimitError" } });
      await alive();
    },
    HELD_MS,
  );

  it("still reports an uncaught overflow as a RangeError, and counts a caught one", async () => {
    expect(
      await executor.execute({ code: "const f = (n) => f(n + 1) + 1; return f(0)" }),
    ).toMatchObject({ status: "error", error: { name: "RangeError" } });
    const caught = await executor.execute({
      code: "const f = () => f(); try { f() } catch (e) { return e instanceof Error }",
    });
    expect(caught).toMatchObject({ status: "ok", result: true });
  });
});

describe("shared worker: slow built-ins are charged by the data they produce or scan", () => {
  it.each([
    ["a repeat loop that keeps nothing", "while (true) 'x'.repeat(1e5)"],
    ["a memory fill", "const a = []; while (true) a.push('x'.repeat(1e5))"],
    ["a padEnd loop", "while (true) ''.padEnd(1e5, 'ab')"],
    ["a join loop over holes", "const a = new Array(1e5); while (true) a.join()"],
    ["a scan loop", "const a = new Array(1e5).fill(0); while (true) a.indexOf(1)"],
    ["a stringify loop", "const o = { s: 'x'.repeat(1e5) }; while (true) JSON.stringify(o)"],
    ["a parse loop", "const t = JSON.stringify('x'.repeat(1e5)); while (true) JSON.parse(t)"],
    [
      "a keys loop",
      "const o = {}; for (let i = 0; i < 2e4; i++) o['k' + i] = i; while (true) Object.keys(o)",
    ],
    ["a loop that swallows the limit", "while (true) { try { 'x'.repeat(1e5) } catch (e) {} }"],
    // Issue #28: a 16 MiB copy is one step and ~3 ms; unpriced, this held a runner for minutes.
    [
      "a 16 MiB typed-array copy loop",
      "const a = new Uint8Array(16 * 1024 * 1024); const b = new Uint8Array(a.length); while (true) a.set(b)",
    ],
    ["a typed-array fill loop", "const a = new Float64Array(2 ** 21); while (true) a.fill(1)"],
    [
      "a copy loop that hides its byteLength",
      "Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), 'byteLength', { get: () => 0 }); const a = new Uint8Array(16 * 1024 * 1024); const b = new Uint8Array(a.length); while (true) a.set(b)",
    ],
  ])(
    "stops %s with status limit",
    async (_label, code) => {
      const outcome = await executor.execute({
        code: guard(code),
        limits: { maxOperations: 100_000 },
      });
      expect(outcome).toMatchObject({ status: "limit", error: { name: "LimitError" } });
      await alive();
    },
    HELD_MS,
  );

  it("names the run's cpuMs when that is the budget the built-ins spent", async () => {
    const outcome = await executor.execute({
      code: guard("while (true) 'x'.repeat(1e5)"),
      limits: { cpuMs: 50 },
    });
    expect(outcome.error?.message).toMatch(/^CPU budget of 50 ms exceeded/);
  });

  it("keeps built-ins working as before", async () => {
    const outcome = await executor.execute({
      code: "return ['ab'.repeat(3), 'x'.padStart(3, '-'), 'y'.padEnd(2), [1, 2].join('+'), [1, 2].indexOf(2), [3].includes(3), Array.from({ length: 2 }, (_, i) => i), new Array(3).fill(7), String.prototype.repeat.name, String.prototype.repeat.length]",
    });
    expect(outcome).toMatchObject({
      status: "ok",
      result: ["ababab", "--x", "y ", "1+2", 1, true, [0, 1], [7, 7, 7], "repeat", 1],
    });
    const typed = await executor.execute({
      code: "const a = new Uint8Array(4); a.set([1, 2], 1); a.fill(9, 3); return [Array.from(a), a.indexOf(2), a.includes(9), Array.from(a.slice(1, 3)), a.join('-'), Uint8Array.prototype.set.name, Uint8Array.prototype.set.length]",
    });
    expect(typed).toMatchObject({
      status: "ok",
      result: [[0, 1, 2, 9], 2, true, [1, 2], "0-1-2-9", "set", 1],
    });
  });
});
