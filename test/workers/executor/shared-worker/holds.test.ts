/**
 * The shared worker's two runaway holds (issue #19): a program that catches its own stack
 * overflow and recurses again (the engine builds a ~1,000-frame trace per overflow, about 1 ms,
 * for one or two operations), and slow built-ins between the engine's step checks (one
 * `'x'.repeat(1e5)` is one step and about 1 ms; on both executors in ../hostile/native-charges.test.ts,
 * its `cpuMs` message here). Both must end with a definite `limit` while the worker keeps
 * serving. Every probe first passes the instrumentation guard of ../hostile/runaway.test.ts.
 * Before the fix each probe here ran from 38 s to hours (the operation budgets below are chosen
 * so the old engine would still finish, after the test's own timeout); no elapsed time is
 * asserted beyond that timeout.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";
import { guardProbe } from "../../../helpers/executor/instrumentation-check";

const executor = new SharedWorkerExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

const guard = guardProbe;

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

describe("shared worker: slow built-ins", () => {
  it("names the run's cpuMs when that is the budget the built-ins spent", async () => {
    const outcome = await executor.execute({
      code: guard("while (true) 'x'.repeat(1e5)"),
      limits: { cpuMs: 50 },
    });
    expect(outcome.error?.message).toMatch(/^CPU budget of 50 ms exceeded/);
  });
});
