/**
 * The host bridge called directly, as a program holding the RPC stub could: every value is
 * hostile, and every limit must hold here without any help from the sandbox's harness.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HostBridge, MAX_IN_FLIGHT_CHARS, RUN_ENDED } from "../../../src/executor/host-bridge";
import type { HostNamespaces } from "../../../src/executor/types";

const LIMITS = { maxHostCalls: 5, maxCallBytes: 1_000, maxLogBytes: 100 };
let seen: unknown[] = [];
const namespaces: HostNamespaces = {
  codemode: {
    echo: (args) => {
      seen.push(args);
      return args[0];
    },
    slow: () => new Promise((resolve) => setTimeout(() => resolve("late"), 20)),
  },
};

function bridge(limits = LIMITS): HostBridge {
  seen = [];
  return new HostBridge(namespaces, limits);
}

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;
const logBytes = (b: HostBridge) => b.logs.reduce((n, l) => n + bytes(l.message) + 1, 0);

describe("the host bridge trusts nothing it is sent", () => {
  it.each([
    ["a number namespace", [1, "echo", "[1]"]],
    ["an object name", ["codemode", { toString: () => "echo" }, "[1]"]],
    ["arguments that are not text", ["codemode", "echo", [1]]],
    ["missing arguments", ["codemode", "echo"]],
  ])("refuses %s with a TypeError naming the fix", (_label, params) => {
    const b = bridge();
    const reply = (b.call as (...a: unknown[]) => unknown)(...params);
    expect(reply).toEqual({
      error: {
        name: "TypeError",
        message: expect.stringMatching(
          /as strings; call host functions through their namespace object/,
        ),
      },
    });
    expect(seen).toEqual([]);
  });

  it.each([
    ["codemode", "constructor"],
    ["codemode", "__proto__"],
    ["codemode", "hasOwnProperty"],
    ["codemode", "toString"],
    ["codemode", "__defineGetter__"],
    ["__proto__", "echo"],
    ["constructor", "echo"],
    ["hasOwnProperty", "call"],
    ["toString", "call"],
  ])("finds no function through the prototype chain: %s.%s", (namespace, name) => {
    const b = bridge();
    expect(b.call(namespace, name, "[1]", undefined)).toEqual({
      error: { name: "TypeError", message: `${namespace}.${name} is not a function.` },
    });
    expect(seen).toEqual([]);
  });

  it("refuses argument text longer than maxCallBytes without decoding it", () => {
    const b = bridge();
    expect(b.call("codemode", "echo", JSON.stringify(["x".repeat(5_000)]), undefined)).toEqual({
      error: { name: "RangeError", message: expect.stringMatching(/over the limit of 1000 bytes/) },
    });
    // 400 units but 1,200 UTF-8 bytes: the length alone does not decide, the bytes do.
    expect(b.call("codemode", "echo", JSON.stringify(["€".repeat(400)]), undefined)).toMatchObject({
      error: { name: "RangeError" },
    });
    expect(seen).toEqual([]);
    expect(b.call("codemode", "echo", JSON.stringify(["ok"]), undefined)).toBe('"ok"');
  });

  it("counts refused calls against maxHostCalls and stops a flood", () => {
    const b = bridge();
    for (let i = 0; i < 3; i++) b.call("codemode", "nope", "[]", undefined);
    b.call(1, 2, 3, undefined);
    expect(b.call("codemode", "echo", "[1]", undefined)).toBe("1");
    for (let i = 0; i < 1_000; i++) {
      expect(b.call("codemode", "echo", "[1]", undefined)).toMatchObject({
        error: { name: "LimitError" },
      });
    }
    expect(b.calls).toBe(5);
    expect(b.limitHit).toMatch(/Host call limit of 5/);
  });

  it("keeps at most maxLogBytes of console lines across every batch, counting the rest", () => {
    const b = bridge({ ...LIMITS, maxHostCalls: 100 });
    b.call("codemode", "echo", "[1]", [{ level: "log", message: "first" }]);
    for (let i = 0; i < 50; i++) {
      b.call("codemode", "echo", "[1]", [
        { level: "warn", message: "W".repeat(100_000) },
        ...Array.from({ length: 1_000 }, () => ({ level: "log", message: "" })),
      ]);
    }
    b.acceptLogs(Array.from({ length: 100_000 }, () => ({ level: "log", message: "tail" })));
    expect(logBytes(b)).toBeLessThanOrEqual(100);
    expect(b.logs[0]).toEqual({ level: "log", message: "first" });
    expect(b.logs[1]!.message).toMatch(/^W+…\[log truncated\]$/);
    expect(b.logs).toHaveLength(2);
    expect(b.droppedLogs()).toBe(50 * 1_001 - 1 + 100_000);
  });

  it("drops malformed console lines and keeps fresh copies of good ones", () => {
    const b = bridge({ ...LIMITS, maxLogBytes: 1_000 });
    const good = { level: "info", message: "fine", extra: "x".repeat(10_000) };
    b.acceptLogs([
      good,
      { level: "shout", message: "bad level" },
      { level: "log", message: 42 },
      null,
      "just text",
      () => "function",
    ]);
    b.acceptLogs("not a list");
    expect(b.logs).toEqual([{ level: "info", message: "fine" }]);
    expect(b.logs[0]).not.toBe(good);
    expect(b.droppedLogs()).toBe(6);
  });

  it("refuses calls after the run ended and ignores their console lines", () => {
    const b = bridge();
    b.close();
    // Marked spent: the sandbox answers the run's later calls itself, without a round trip each.
    expect(b.call("codemode", "echo", "[1]", [{ level: "log", message: "late" }])).toMatchObject({
      error: { message: expect.stringMatching(/after the run ended/) },
      spent: true,
    });
    expect(b.refuseWaiting("codemode", "echo")).toMatchObject({
      error: { message: expect.stringMatching(/after the run ended/) },
      spent: true,
    });
    expect(b.logs).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("aborts the signal of every call in flight when the run ends, once, and each call's is the same", async () => {
    const signals: AbortSignal[] = [];
    const b = new HostBridge(
      {
        codemode: {
          wait: (_args, context) => {
            signals.push(context.signal);
            return new Promise((resolve) =>
              context.signal.addEventListener("abort", () => resolve("stopped")),
            );
          },
        },
      },
      LIMITS,
    );
    const first = b.call("codemode", "wait", "[]", undefined);
    const second = b.call("codemode", "wait", "[]", undefined);
    expect(signals).toHaveLength(2);
    expect(signals[0]).toBe(signals[1]);
    expect(signals[0]!.aborted).toBe(false);
    b.close();
    b.close();
    expect(signals[0]!.aborted).toBe(true);
    expect((signals[0]!.reason as Error).message).toBe("The run ended.");
    expect(await first).toEqual(await second);
    expect(b.call("codemode", "wait", "[]", undefined)).toMatchObject({
      error: { message: expect.stringMatching(/after the run ended/) },
    });
    expect(signals).toHaveLength(2);
  });

  it("ends every run's signal with one frozen reason, built once, not per run", () => {
    const reasons = [1, 2].map(() => {
      let signal: AbortSignal | undefined;
      const b = new HostBridge(
        {
          codemode: {
            grab: (_args, context) => {
              signal = context.signal;
              return new Promise(() => {});
            },
          },
        },
        LIMITS,
      );
      b.call("codemode", "grab", "[]", undefined);
      b.close();
      return signal!.reason as Error;
    });
    // A new Error per run captured a stack at every run's end (issue #43); the reason's name
    // and message, all a host function's failure passes on, are the same either way.
    expect(reasons[0]).toBe(reasons[1]);
    expect(reasons[0]).toBe(RUN_ENDED);
    expect(reasons[0]).toBeInstanceOf(Error);
    expect(reasons[0]!.message).toBe("The run ended.");
    // No run's host code can change what the next run's host code reads.
    expect(Object.isFrozen(RUN_ENDED)).toBe(true);
    expect(() => {
      (RUN_ENDED as { message: string }).message = "changed";
    }).toThrow(TypeError);
  });

  it("leaves the signal alone at the run's end when every call has settled", async () => {
    const signals: AbortSignal[] = [];
    const b = new HostBridge(
      {
        codemode: {
          sync: (_args, context) => void signals.push(context.signal),
          done: async (_args, context) => {
            signals.push(context.signal);
            return "done";
          },
          failed: async (_args, context) => {
            signals.push(context.signal);
            throw new Error("no");
          },
        },
      },
      LIMITS,
    );
    b.call("codemode", "sync", "[]", undefined);
    expect(await b.call("codemode", "done", "[]", undefined)).toEqual('"done"');
    expect(await b.call("codemode", "failed", "[]", undefined)).toMatchObject({
      error: { message: "no" },
    });
    b.close();
    // Nothing waits on it: aborting it was only cost (issue #43). Calls after the end are
    // still refused.
    expect(signals).toHaveLength(3);
    expect(signals.every((signal) => !signal.aborted)).toBe(true);
    expect(b.call("codemode", "sync", "[]", undefined)).toMatchObject({
      error: { message: expect.stringMatching(/after the run ended/) },
    });
  });

  it("aborts at the run's end when one call of several is still running", async () => {
    let signal: AbortSignal | undefined;
    const b = new HostBridge(
      {
        codemode: {
          done: async () => "done",
          wait: (_args, context) => {
            signal = context.signal;
            return new Promise((resolve) =>
              context.signal.addEventListener("abort", () => resolve("stopped")),
            );
          },
        },
      },
      LIMITS,
    );
    await b.call("codemode", "done", "[]", undefined);
    const waiting = b.call("codemode", "wait", "[]", undefined);
    await b.call("codemode", "done", "[]", undefined);
    b.close();
    expect(signal!.aborted).toBe(true);
    expect(signal!.reason).toBe(RUN_ENDED);
    expect(await waiting).toEqual('"stopped"');
  });

  it("bounds the argument text held by calls still running", async () => {
    const big = JSON.stringify(["y".repeat(1_000_000)]);
    const b = bridge({ maxHostCalls: 1_000, maxCallBytes: 2_000_000, maxLogBytes: 100 });
    const replies: unknown[] = [];
    for (let i = 0; i < 40; i++) replies.push(b.call("codemode", "slow", big, undefined));
    const refused = replies.filter((r) => !(r instanceof Promise));
    const running = Math.floor(MAX_IN_FLIGHT_CHARS / big.length);
    expect(replies.length - refused.length).toBe(running);
    expect(refused[0]).toMatchObject({
      error: {
        name: "LimitError",
        message: expect.stringMatching(/await some calls before starting more/),
      },
    });
    await Promise.all(replies);
    // Settled calls release their share: the next one runs.
    expect(b.call("codemode", "slow", big, undefined)).toBeInstanceOf(Promise);
  });
});

describe("the bridge's RPC surface", () => {
  it("offers the sandbox nothing but call()", async () => {
    const b = bridge({ ...LIMITS, maxLogBytes: 1_000 });
    const probe = [
      'import { WorkerEntrypoint } from "cloudflare:workers";',
      "export default class extends WorkerEntrypoint {",
      "  async probe(host) {",
      "    const out = {};",
      "    for (const name of ['close', 'acceptLogs', 'droppedLogs', 'budget', 'controller', 'logs', 'calls', 'limitHit', 'namespaces', 'limits']) {",
      "      try { const v = host[name]; out[name] = await (typeof v === 'function' ? v([{ level: 'log', message: 'injected' }]) : v); out[name] = typeof out[name]; }",
      "      catch (e) { out[name] = 'refused' }",
      "    }",
      "    out.call = await host.call('codemode', 'echo', '[\"ok\"]', undefined);",
      "    return out;",
      "  }",
      "}",
    ].join("\n");
    const worker = env.LOADER.load({
      compatibilityDate: "2026-08-01",
      mainModule: "probe.js",
      modules: { "probe.js": probe },
      globalOutbound: null,
    });
    const entry = worker.getEntrypoint() as unknown as {
      probe(host: HostBridge): Promise<Record<string, string>>;
    };
    const out = await entry.probe(b);
    expect(out["call"]).toBe('"ok"');
    for (const name of [
      "close",
      "acceptLogs",
      "droppedLogs",
      "budget",
      "controller",
      "logs",
      "calls",
      "limitHit",
      "namespaces",
      "limits",
    ]) {
      expect([name, out[name]]).toEqual([name, "refused"]);
    }
    expect(b.logs).toEqual([]);
    expect(b.call("codemode", "echo", "[1]", undefined)).toBe("1");
  });
});

describe("binary values beside the argument text", () => {
  const WIDE = { maxHostCalls: 5, maxCallBytes: 10_000, maxLogBytes: 100 };
  const filled = (n: number, byte = 7) => new Uint8Array(n).fill(byte).buffer;
  const ONE = '[{"$cm":"bytes","i":0}]';

  it("decodes the tags to bytes and answers binary values beside the text", () => {
    const b = bridge(WIDE);
    const buffer = filled(2_000);
    const reply = b.call("codemode", "echo", ONE, undefined, [buffer]) as {
      text: string;
      bytes: ArrayBuffer[];
    };
    const [args] = seen as [unknown[]];
    expect(args[0]).toBeInstanceOf(Uint8Array);
    expect(args[0]).toEqual(new Uint8Array(2_000).fill(7));
    expect(reply.text).toBe('{"$cm":"bytes","i":0}');
    expect(reply.bytes.map((x) => new Uint8Array(x))).toEqual([new Uint8Array(2_000).fill(7)]);
  });

  const detached = () => {
    const buffer = filled(2_000);
    structuredClone(buffer, { transfer: [buffer] });
    return buffer;
  };
  const shared = filled(2_000);
  it.each([
    ["a list-like object", () => ({ 0: filled(2_000), length: 1 }), /not a list of ArrayBuffers/],
    ["a typed array", () => [new Uint8Array(2_000)], /not a list of ArrayBuffers/],
    ["shared memory", () => [new SharedArrayBuffer(2_000)], /not a list of ArrayBuffers/],
    [
      "a Proxy of an ArrayBuffer",
      () => [new Proxy(filled(2_000), {})],
      /not a list of ArrayBuffers/,
    ],
    ["a number", () => [2_000], /not a list of ArrayBuffers/],
    ["a detached buffer", () => [detached()], /detached ArrayBuffer/],
    [
      "a resizable buffer",
      // The lib's typings lack the options argument that workerd (and Node 20) take.
      () => [
        new (ArrayBuffer as new (n: number, o: object) => ArrayBuffer)(2_000, {
          maxByteLength: 1_000_000,
        }),
      ],
      /resizable ArrayBuffer/,
    ],
    ["one buffer twice", () => [shared, shared], /same ArrayBuffer twice/],
    // Empty ones cost nothing against the byte or in-flight bounds (hostile/binary-values.test.ts).
    ["a buffer under 1 KiB", () => [filled(1_023)], /of 1023 bytes .* smaller than 1024 bytes/],
    [
      "more buffers than the limit allows",
      () => Array.from({ length: 10 }, () => filled(1)),
      /carry 10 binary values/,
    ],
    [
      "buffers over the limit together",
      () => [filled(6_000), filled(6_000)],
      /over the limit of 10000 bytes/,
    ],
  ])("refuses %s before any host function runs", (_label, make, message) => {
    const b = bridge(WIDE);
    const reply = b.call("codemode", "echo", ONE, undefined, make() as ArrayBuffer[]);
    expect(reply).toEqual({
      error: { name: expect.any(String), message: expect.stringMatching(message) },
    });
    expect(seen).toEqual([]);
  });

  it("counts the text and the bytes together against maxCallBytes", () => {
    const b = bridge(WIDE);
    const text = JSON.stringify([{ $cm: "bytes", i: 0 }, "x".repeat(5_000)]);
    expect(b.call("codemode", "echo", text, undefined, [filled(5_000)])).toEqual({
      error: {
        name: "RangeError",
        message: expect.stringMatching(/over the limit of 10000 bytes/),
      },
    });
    expect(b.call("codemode", "echo", text, undefined, [filled(4_000)])).toMatchObject({
      text: '{"$cm":"bytes","i":0}',
    });
  });

  it("reads a buffer's length by the engine's accessor, not a property it holds", () => {
    const b = bridge(WIDE);
    const buffer = filled(20_000);
    Object.defineProperty(buffer, "byteLength", { get: () => 1 });
    expect(b.call("codemode", "echo", ONE, undefined, [buffer])).toMatchObject({
      error: { name: "RangeError" },
    });
    expect(seen).toEqual([]);
  });
});
