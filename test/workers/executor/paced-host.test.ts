/**
 * PacedHost (src/executor/runners/paced-host.ts), the host bridge a program sees through a
 * local sandbox runner: at most 32 calls of a run reach the host at once, and a program flooding
 * calls cannot make the runner (which other runs share) hold more waiting calls than the run's
 * own `maxHostCalls` (#28: it was a fixed 1,000) or 16 MiB of their arguments: past that a call
 * is answered with a LimitError at once. The last tests run real programs through a real
 * `SandboxRunner` over the Worker Loader, as the local server does.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { HostBridge } from "../../../src/executor/host-bridge";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";
import { RunnerLoader } from "../../../src/executor/runners/runner-loader";
import { trackHostCalls } from "../../../src/executor/runners/tracked-host";
import {
  flightFor,
  HOST_CALLS_IN_FLIGHT,
  MAX_WAITING_CALLS,
  MAX_WAITING_CHARS,
  PacedHost,
  WAITING_CALL_CHARS,
  waitingCallsFor,
} from "../../../src/executor/runners/paced-host";
import { SandboxRunner } from "../../../src/executor/runners/sandbox-runner";

/** A host whose calls never answer, counting what reached it. */
function stuckHost() {
  const reached: unknown[] = [];
  return {
    reached,
    call: (_ns: unknown, _name: unknown, argsText: unknown) => {
      reached.push(argsText);
      return new Promise<unknown>(() => {});
    },
  };
}

const settledNow = async (promise: Promise<unknown>) =>
  Promise.race([promise, new Promise((r) => setTimeout(r, 20, "pending"))]);

describe("PacedHost", () => {
  it("lets 32 calls reach the host, keeps the rest waiting in order", async () => {
    const host = stuckHost();
    const paced = new PacedHost(host);
    for (let i = 0; i < HOST_CALLS_IN_FLIGHT + 5; i++)
      void paced.call("codemode", "f", `${i}`, undefined);
    await settledNow(Promise.resolve());
    expect(host.reached).toHaveLength(HOST_CALLS_IN_FLIGHT);
  });

  it("refuses a call past the waiting count, at once, without reaching the host", async () => {
    const host = stuckHost();
    const paced = new PacedHost(host);
    for (let i = 0; i < HOST_CALLS_IN_FLIGHT + MAX_WAITING_CALLS; i++)
      void paced.call("codemode", "f", "[]", undefined);
    const refused = await settledNow(paced.call("codemode", "f", "[]", undefined));
    expect(refused).toMatchObject({ error: { name: "LimitError" } });
    expect(host.reached).toHaveLength(HOST_CALLS_IN_FLIGHT);
  });

  it("bounds the waiting calls by the run's own maxHostCalls, not a fixed 1,000", async () => {
    for (const maxHostCalls of [100, 5_000]) {
      const host = stuckHost();
      const paced = new PacedHost(host, waitingCallsFor({ maxHostCalls }));
      const calls = Array.from({ length: HOST_CALLS_IN_FLIGHT + maxHostCalls + 1 }, () =>
        paced.call("codemode", "f", "[]", undefined),
      );
      // Every call up to the bound waits; only the one past it is answered at once.
      expect(await settledNow(calls.at(-2)!)).toBe("pending");
      expect(await settledNow(calls.at(-1)!)).toMatchObject({
        error: { name: "LimitError", message: new RegExp(`limit of ${maxHostCalls} reached`) },
      });
      expect(host.reached).toHaveLength(HOST_CALLS_IN_FLIGHT);
    }
  });

  it("reads the bound from the run's request only when it is a count; else 1,000", () => {
    expect(waitingCallsFor({ maxHostCalls: 5_000 })).toBe(5_000);
    for (const request of [{}, null, "x", { maxHostCalls: 0 }, { maxHostCalls: 1.5 }])
      expect(waitingCallsFor(request)).toBe(MAX_WAITING_CALLS);
    expect(waitingCallsFor({ maxHostCalls: "9" })).toBe(MAX_WAITING_CALLS);
  });

  it("charges every waiting call for its keeping: a huge maxHostCalls cannot park millions", async () => {
    const host = stuckHost();
    const paced = new PacedHost(host, waitingCallsFor({ maxHostCalls: Number.MAX_SAFE_INTEGER }));
    const fits = MAX_WAITING_CHARS / (WAITING_CALL_CHARS + 2);
    for (let i = 0; i < HOST_CALLS_IN_FLIGHT + Math.floor(fits); i++)
      void paced.call("codemode", "f", "[]", undefined);
    const refused = await settledNow(paced.call("codemode", "f", "[]", undefined));
    expect(refused).toMatchObject({ error: { name: "LimitError" } });
  });

  it("refuses a call past the waiting argument text, at once", async () => {
    const host = stuckHost();
    const paced = new PacedHost(host);
    for (let i = 0; i < HOST_CALLS_IN_FLIGHT; i++)
      void paced.call("codemode", "f", "[]", undefined);
    const quarter = "x".repeat(MAX_WAITING_CHARS / 4 - WAITING_CALL_CHARS);
    for (let i = 0; i < 4; i++) void paced.call("codemode", "f", quarter, undefined);
    const refused = await settledNow(paced.call("codemode", "f", "[1]", undefined));
    expect(refused).toMatchObject({
      error: { name: "LimitError", message: /characters of arguments/ },
    });
  });

  it("counts the binary values beside a call's text as it counts the text, and passes them on", async () => {
    const host = stuckHost();
    const seen: unknown[] = [];
    const paced = new PacedHost({
      call: (ns, name, argsText, logs, ...rest) => {
        seen.push(rest);
        return host.call(ns, name, argsText);
      },
    });
    const bytes = [new ArrayBuffer(2_000)];
    void paced.call("codemode", "f", "[]", undefined, bytes);
    await settledNow(Promise.resolve());
    // The first call's buffers reach the host as they came; a call without any, as four.
    expect(seen).toEqual([[bytes]]);
    for (let i = 1; i < HOST_CALLS_IN_FLIGHT; i++)
      void paced.call("codemode", "f", "[]", undefined);
    expect(seen[1]).toEqual([]);
    const quarter = [new ArrayBuffer(MAX_WAITING_CHARS / 4 - 2 * WAITING_CALL_CHARS - 2)];
    for (let i = 0; i < 4; i++) void paced.call("codemode", "f", "[]", undefined, quarter);
    const refused = await settledNow(paced.call("codemode", "f", "[1]", undefined));
    expect(refused).toMatchObject({
      error: { name: "LimitError", message: /characters of arguments/ },
    });
  });
});

/** A host whose calls answer when the test says, counting those at the host now. */
function heldHost() {
  const answers: (() => void)[] = [];
  const state = { atHost: 0, reached: 0 };
  return {
    state,
    answerOne: () => answers.shift()?.(),
    call: () => {
      state.atHost++;
      state.reached++;
      return new Promise<unknown>((resolve) =>
        answers.push(() => {
          state.atHost--;
          resolve("ok");
        }),
      );
    },
  };
}

describe("PacedHost: the runner's flight shared by its runs (attack26)", () => {
  it("a run has its share of the runner's 32 calls while others run there, at least one", () => {
    expect(flightFor(1)).toBe(HOST_CALLS_IN_FLIGHT);
    expect(flightFor(0)).toBe(HOST_CALLS_IN_FLIGHT);
    expect(flightFor(8)).toBe(4);
    expect(flightFor(40)).toBe(1);
    expect(flightFor(Number.NaN)).toBe(HOST_CALLS_IN_FLIGHT);
  });

  it("with 8 runs under way, a run flooding calls has 4 at the host, not 32", async () => {
    const host = stuckHost();
    const paced = new PacedHost(host, MAX_WAITING_CALLS, () => 8);
    for (let i = 0; i < 100; i++) void paced.call("codemode", "f", `${i}`, undefined);
    await settledNow(Promise.resolve());
    expect(host.reached).toEqual(["0", "1", "2", "3"]);
  });

  it("follows the share as runs come and go, in order, never stuck with calls waiting", async () => {
    const host = heldHost();
    const runs = { now: 1 };
    const paced = new PacedHost(host, MAX_WAITING_CALLS, () => runs.now);
    const calls = Array.from({ length: 40 }, (_, i) =>
      paced.call("codemode", "f", `${i}`, undefined),
    );
    expect(host.state.atHost).toBe(HOST_CALLS_IN_FLIGHT);
    // 31 more runs begin: the share is 1, so no call is sent until the 32 at the host are 1.
    runs.now = 32;
    for (let i = 0; i < 20; i++) host.answerOne();
    await settledNow(Promise.resolve());
    expect(host.state.atHost).toBe(HOST_CALLS_IN_FLIGHT - 20);
    expect(host.state.reached).toBe(HOST_CALLS_IN_FLIGHT);
    for (let i = 0; i < 11; i++) host.answerOne();
    await settledNow(Promise.resolve());
    expect(host.state.atHost).toBe(1);
    // Down to the share: each answer lets one more in.
    host.answerOne();
    await settledNow(Promise.resolve());
    expect(host.state).toEqual({ atHost: 1, reached: HOST_CALLS_IN_FLIGHT + 1 });
    // The others end: the run's next answer fills its whole share again.
    runs.now = 1;
    host.answerOne();
    await settledNow(Promise.resolve());
    expect(host.state.atHost).toBe(40 - HOST_CALLS_IN_FLIGHT - 1);
    while (host.state.atHost > 0) {
      host.answerOne();
      await settledNow(Promise.resolve());
    }
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 40 }, () => "ok"));
    expect(host.state.reached).toBe(40);
  });
});

describe("binary values through the tracked host to a real bridge", () => {
  it("reach the host function as bytes, and its bytes come back beside the text", async () => {
    const bridge = new HostBridge(
      { codemode: { echo: ([value]) => value } },
      { maxHostCalls: 5, maxCallBytes: 1_048_576, maxLogBytes: 1_000 },
    );
    const { target } = trackHostCalls(bridge, { onBegin() {}, onCall() {} });
    const paced = new PacedHost(target as ConstructorParameters<typeof PacedHost>[0]);
    const sent = new Uint8Array(5_000).fill(9).buffer;
    const reply = (await paced.call("codemode", "echo", '[{"$cm":"bytes","i":0}]', undefined, [
      sent,
    ])) as { text: string; bytes: ArrayBuffer[] };
    expect(reply.text).toBe('{"$cm":"bytes","i":0}');
    expect(new Uint8Array(reply.bytes[0]!)).toEqual(new Uint8Array(5_000).fill(9));
  });
});

describe("a call refused for waiting argument text, through the tracked host to a real bridge", () => {
  /** A bridge whose calls never answer, reached as a runner reaches it. */
  function pacedBridge(maxHostCalls: number) {
    const never = () => new Promise<unknown>(() => {});
    const bridge = new HostBridge(
      { codemode: { f: never } },
      { maxHostCalls, maxCallBytes: 64 * 1_048_576, maxLogBytes: 1_000 },
    );
    const { target } = trackHostCalls(bridge, { onBegin() {}, onCall() {} });
    const paced = new PacedHost(target as ConstructorParameters<typeof PacedHost>[0]);
    for (let i = 0; i < HOST_CALLS_IN_FLIGHT; i++)
      void paced.call("codemode", "f", "[]", undefined);
    const quarter = `["${"x".repeat(MAX_WAITING_CHARS / 4 - WAITING_CALL_CHARS - 4)}"]`;
    for (let i = 0; i < 4; i++) void paced.call("codemode", "f", quarter, undefined);
    return { bridge, paced };
  }

  it("counts as a host call, with the host's message, as without a runner", async () => {
    const { bridge, paced } = pacedBridge(1_000);
    const refused = await settledNow(paced.call("codemode", "f", "[1]", undefined));
    expect(refused).toMatchObject({
      error: { name: "LimitError", message: /codemode\.f\(\) would hold more than .* waiting or/ },
    });
    // Before, the runner answered alone: the host saw 32 calls and the run could retry forever.
    expect(bridge.calls).toBe(HOST_CALLS_IN_FLIGHT + 1);
    expect(bridge.limitHit).toBeUndefined();
  });

  it("past the run's maxHostCalls it is the host's call limit, and the run ends as limit", async () => {
    const { bridge, paced } = pacedBridge(HOST_CALLS_IN_FLIGHT);
    const refused = await settledNow(paced.call("codemode", "f", "[1]", undefined));
    expect(refused).toMatchObject({ error: { name: "LimitError", message: /limit of 32/ } });
    expect(bridge.limitHit).toMatch(/Host call limit of 32/);
  });
});

describe("calls refused for waiting argument text, in a flood", () => {
  it("the host is told of at most maxHostCalls of them; later ones share the limit answer", async () => {
    const told = { waiting: 0, limit: 0 };
    const host = {
      call: () => new Promise<unknown>(() => {}),
      overWaiting: () => (told.waiting++, { error: { name: "LimitError", message: "waiting" } }),
      overLimit: () => (told.limit++, { error: { name: "LimitError", message: "limit" } }),
    };
    const maxHostCalls = 40;
    const paced = new PacedHost(host, maxHostCalls);
    for (let i = 0; i < HOST_CALLS_IN_FLIGHT; i++)
      void paced.call("codemode", "f", "[]", undefined);
    const half = "x".repeat(MAX_WAITING_CHARS / 2 - WAITING_CALL_CHARS);
    for (let i = 0; i < 2; i++) void paced.call("codemode", "f", half, undefined);
    const answers = await Promise.all(
      Array.from({ length: 500 }, () => paced.call("codemode", "f", "[1]", undefined)),
    );
    // Before, every refused call was one more round trip to the host, without end.
    expect(told).toEqual({ waiting: maxHostCalls, limit: 1 });
    expect(answers.at(-1)).toMatchObject({ error: { message: "limit" } });
  });
});

describe("a real run through a SandboxRunner", () => {
  // The runner in this isolate, as its own workerd process holds it locally: same class, same
  // Worker Loader, the host bridge crossing real RPC.
  const runner = new SandboxRunner(createExecutionContext(), {
    LOADER: env.LOADER,
    LOCAL_CLUSTER_SECRET: "paced-host-test",
  });
  const loader = new RunnerLoader([runner], Date.now, trackHostCalls, "paced-host-test");
  const executor = new WorkerLoaderExecutor({
    loader: loader as unknown as WorkerLoader,
    limits: { timeoutMs: 60_000 },
  });
  const slow = {
    codemode: { get: (args: unknown[]) => new Promise((r) => setTimeout(r, 1, args[0])) },
  };
  const fanOut = (n: number) =>
    `async () => (await Promise.all(Array.from({ length: ${n} }, (_, i) => codemode.get(i)))).length`;

  it("a run allowed 2,500 calls may start them all at once (the old fixed bound refused past 1,032)", async () => {
    const outcome = await executor.execute({
      code: fanOut(2_500),
      namespaces: slow,
      limits: { maxHostCalls: 2_500 },
    });
    expect(outcome).toMatchObject({ status: "ok", result: 2_500, calls: 2_500 });
  });

  it("a run the host gave up on stops on the runner too: the runner is free again (#28)", async () => {
    // A polling loop that catches every error: after the host's timeout its calls fail, and
    // before the harness ended runs itself it kept polling on its runner forever (busy stayed 1).
    let reached = 0;
    const counting = { codemode: { get: () => ++reached } };
    const outcome = await executor.execute({
      code: `async () => { for (;;) { try { await codemode.get(1); } catch {} await new Promise((r) => setTimeout(r, 5)); } }`,
      namespaces: counting,
      limits: { timeoutMs: 300 },
    });
    expect(outcome.status).toBe("timeout");
    const until = Date.now() + 5_000;
    while (loader.busy().some((n) => n > 0) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    expect(loader.busy()).toEqual([0]);
    expect(reached).toBeGreaterThan(0);
  });

  it("a program cannot keep its run going past the host's timeout by replacing what the harness's end uses", async () => {
    for (const sabotage of [
      "",
      "Promise.resolve = () => new Promise(() => {});",
      "Array.prototype[Symbol.iterator] = function* () {};",
      "Promise.prototype.then = function () { return this; };",
      "Promise.prototype.constructor = Object; Promise.prototype.then = function () { return this; };",
    ]) {
      const outcome = await executor.execute({
        // A native timer callback runs no counted operation, and keeps workerd from
        // calling the run hung: only the harness's own end can finish it.
        code: `async () => { ${sabotage} setInterval(Math.random, 5); await new Promise(() => {}); }`,
        namespaces: slow,
        limits: { timeoutMs: 300 },
      });
      expect(outcome.status, sabotage).toBe("timeout");
      const until = Date.now() + 5_000;
      while (loader.busy().some((n) => n > 0) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      expect(loader.busy(), sabotage).toEqual([0]);
    }
  });

  it("a run allowed 100 calls that starts 300 ends at its own limit", async () => {
    const outcome = await executor.execute({
      code: fanOut(300),
      namespaces: slow,
      limits: { maxHostCalls: 100 },
    });
    // As without a runner: the host's own limit, named by the host.
    expect(outcome).toMatchObject({
      status: "limit",
      error: { name: "LimitError", message: expect.stringMatching(/Host call limit of 100/) },
    });
    expect(outcome.calls).toBeLessThanOrEqual(100);
  });
});
