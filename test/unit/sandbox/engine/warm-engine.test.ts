/**
 * The engine template (sandbox/engine/warm-engine.ts) is one runtime and context that every run
 * alone in the engine reuses, its memory written back to the copy taken after the harness was
 * compiled. What it shares between runs is exactly what a hostile run attacks here: the global
 * object, the prototypes, the built-ins the harness captured, the extension modules already
 * evaluated, the engine's memory. Plain Node with the real QuickJS WebAssembly and the real
 * guest modules, as run-memory-growth.test.ts.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { resultOf } from "../../../helpers/executor/engine-result";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";
import { engineMemory } from "../../../../sandbox/engine/ffi";
import { WarmEngine, type TemplateTenant } from "../../../../sandbox/engine/warm-engine";
import type { EngineRunRequest } from "../../../../sandbox/engine/protocol";
import type { HostReply } from "../../../../sandbox/protocol";

async function newEngine(): Promise<WarmEngine> {
  const engine = new WarmEngine(await newQuickJSWASMModuleFromVariant(variant));
  expect(engine.warm).toBe(true);
  return engine;
}

/** Starts `code`; the host answers each call with its arguments, after `hold` when given. */
function start(
  engine: WarmEngine,
  code: string,
  options: { hold?: Promise<void>; changes?: Partial<EngineRunRequest> } = {},
) {
  const host = async (_ns: string, _name: string, args: string): Promise<HostReply> => {
    await options.hold;
    return args;
  };
  const run = new EngineRun(
    engine,
    engineRunRequest(code, { timeoutMs: 5_000, ...options.changes }),
    [],
    host,
  );
  const outcome = run.result.then((result) => {
    expect(run.dispose()).toBe(true);
    return result;
  });
  return { run, outcome };
}

/** What a later run reads of everything the poisoning program changes. */
const PROBE = `
  const seen = {
    polluted: ({}).polluted,
    map: [1, 2].map((x) => x * 2),
    json: JSON.stringify({ a: 1 }),
    leak: typeof leak,
    chained: await Promise.resolve(5).then((x) => x + 1),
    defineProperty: Object.defineProperty.name,
    errorName: new TypeError("x").toString(),
    timeout: typeof setTimeout,
    echo: await codemode.echo(7),
    console: typeof console.log,
  };
  console.log("probe");
  return seen;
`;

const CLEAN = {
  map: [2, 4],
  json: '{"a":1}',
  leak: "undefined",
  chained: 6,
  defineProperty: "defineProperty",
  errorName: "TypeError: x",
  timeout: "function",
  echo: [7],
  console: "function",
};

/** Changes a program can make to what the template holds, including what the harness uses. */
const POISON = [
  'Object.prototype.polluted = "yes"',
  'Array.prototype.map = () => "hijacked"',
  "JSON.stringify = () => '\"forged\"'",
  "globalThis.leak = 42",
  'const then = Promise.prototype.then; Promise.prototype.then = function (a, b) { globalThis.leak = "then"; return then.call(this, a, b) }',
  'Object.defineProperty = () => { throw new Error("poisoned") }',
  'TypeError.prototype.toString = () => "forged"',
  "globalThis.setTimeout = undefined",
  "console.log = () => {}",
]
  // Some of them the harness made read-only: each is tried on its own.
  .map((line) => `try { ${line} } catch {}`)
  .join("\n");

describe("shared worker engine: the template runs share", () => {
  it("gives a run alone in the engine the template, and the next one finds nothing of it", async () => {
    const engine = await newEngine();
    const first = start(engine, `${POISON}; return ({}).polluted`);
    expect(first.run.warm).toBe(true);
    expect(await resultOf(first.outcome)).toBe("yes");
    const second = start(engine, PROBE);
    expect(second.run.warm).toBe(true);
    const seen = (await resultOf(second.outcome)) as Record<string, unknown>;
    expect(seen).toEqual(CLEAN);
    const response = JSON.parse((await second.outcome) as string) as { logs: unknown[] };
    expect(response.logs).toHaveLength(1);
  });

  it("gives a run that starts beside another a fresh runtime; neither sees the other, nor the next run", async () => {
    const engine = await newEngine();
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const alone = start(engine, `${POISON}; await codemode.echo(1); return typeof leak`, { hold });
    const beside = start(
      engine,
      `globalThis.mine = 2; ${PROBE.replace("return seen", "return { seen, mine }")}`,
    );
    expect(alone.run.warm).toBe(true);
    expect(beside.run.warm).toBe(false);
    const besideSeen = (await resultOf(beside.outcome)) as { seen: unknown; mine: number };
    expect(besideSeen).toEqual({ seen: CLEAN, mine: 2 });
    release();
    // The poisoned `then` ran in the first run's own awaits: it sees its own change, no other.
    expect(await resultOf(alone.outcome)).toBe("string");
    const after = start(
      engine,
      `${PROBE.replace("return seen", "return { seen, mine: typeof mine }")}`,
    );
    expect(after.run.warm).toBe(true);
    expect(await resultOf(after.outcome)).toEqual({ seen: CLEAN, mine: "undefined" });
  });

  it("gives a run that starts after the template's run ended, beside a fresh one still under way, a fresh runtime too", async () => {
    // attack11's overlap: A has the template, B starts beside it (fresh, in the same memory),
    // A ends, C starts while B still runs. A restore for C would write the copy over B's
    // runtime: C must get a fresh one, and B must finish with its own state whole.
    const engine = await newEngine();
    let releaseA!: () => void;
    let releaseB!: () => void;
    const holdA = new Promise<void>((resolve) => (releaseA = resolve));
    const holdB = new Promise<void>((resolve) => (releaseB = resolve));
    const a = start(engine, `${POISON}; await codemode.echo(1); return 1`, { hold: holdA });
    const b = start(
      engine,
      `globalThis.mine = "b".repeat(100000); const list = Array.from({ length: 20000 }, (_, i) => ({ i }));
       await codemode.echo(1);
       const more = Array.from({ length: 20000 }, (_, i) => "x" + i);
       return { mine: mine.length, sum: list.reduce((s, o) => s + o.i, 0), more: more.length, leak: typeof leak }`,
      { hold: holdB },
    );
    expect([a.run.warm, b.run.warm]).toEqual([true, false]);
    releaseA();
    await a.outcome;
    const c = start(engine, PROBE);
    expect(c.run.warm).toBe(false);
    releaseB();
    expect(await resultOf(b.outcome)).toEqual({
      mine: 100000,
      sum: 199990000,
      more: 20000,
      leak: "undefined",
    });
    expect(await resultOf(c.outcome)).toEqual(CLEAN);
    const d = start(engine, PROBE);
    expect(d.run.warm).toBe(true);
    expect(await resultOf(d.outcome)).toEqual(CLEAN);
  });

  it.each([
    ["interrupted", `${POISON}; for (;;) {}`, { maxInterrupts: 400 }],
    [
      "out of memory",
      `${POISON}; const a = []; for (;;) a.push("x".repeat(1000) + a.length)`,
      { memoryBytes: 8 * 1_048_576 },
    ],
    [
      "grew the engine's memory",
      `${POISON}; const big = "m".repeat(40 * 1024 * 1024); return big.length`,
      { memoryBytes: 128 * 1_048_576 },
    ],
  ] as const)(
    "hands the template back clean after a run that %s",
    async (_label, code, changes) => {
      const engine = await newEngine();
      const first = start(engine, code, { changes });
      expect(first.run.warm).toBe(true);
      await first.outcome;
      const second = start(engine, PROBE);
      expect(second.run.warm).toBe(true);
      expect(await resultOf(second.outcome)).toEqual(CLEAN);
    },
  );

  it("gives each run its own Math.random sequence, though the template's seed is in the copy", async () => {
    const engine = await newEngine();
    const draws: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const run = start(engine, "return [Math.random(), Math.random()]");
      expect(run.run.warm).toBe(true);
      draws.push(JSON.stringify(await resultOf(run.outcome)));
    }
    expect(new Set(draws).size).toBe(3);
  });

  it("runs every program on a fresh runtime when the template cannot be built", async () => {
    const quickjs = await newQuickJSWASMModuleFromVariant(variant);
    // A library whose context lacks a cache the template resets on restore: no template.
    const newRuntime = quickjs.newRuntime.bind(quickjs);
    quickjs.newRuntime = (options) => {
      const rt = newRuntime(options);
      const newContext = rt.newContext.bind(rt);
      rt.newContext = (contextOptions) => {
        const ctx = newContext(contextOptions);
        delete (ctx as unknown as Record<string, unknown>)["_Symbol"];
        return ctx;
      };
      return rt;
    };
    const engine = new WarmEngine(quickjs);
    expect(engine.warm).toBe(false);
    for (let i = 0; i < 2; i++) {
      const run = start(engine, `${i === 0 ? POISON : ""}; return typeof leak`);
      expect(run.run.warm).toBe(false);
      expect(await resultOf(run.outcome)).toBe(i === 0 ? "number" : "undefined");
    }
  });

  it("writes back the same bytes every time (but the random seed), whatever the run in between did", async () => {
    const quickjs = await newQuickJSWASMModuleFromVariant(variant);
    const engine = new WarmEngine(quickjs);
    const tenant = {} as TemplateTenant;
    const limits = { memoryBytes: 64 * 1_048_576, stackBytes: 196_608 };
    const first = engine.begin(tenant, limits)!;
    const copy = engineMemory(first.rt).slice(0, 16 * 1_048_576);
    engine.end(first);
    await resultOf(start(engine, `${POISON}; return [1, 2, 3].join()`).outcome);
    const again = engine.begin(tenant, limits)!;
    const restored = engineMemory(again.rt).slice(0, 16 * 1_048_576);
    engine.end(again);
    // Every byte but the context's Math.random state, which each restore seeds anew.
    const differing: number[] = [];
    restored.forEach((byte, i) => byte !== copy[i] && differing.push(i));
    expect(differing.length).toBeGreaterThan(0);
    expect(differing.at(-1)! - differing[0]!).toBeLessThan(8);
    expect(Math.floor(differing[0]! / 8)).toBe(Math.floor(differing.at(-1)! / 8));
  });

  it("a run whose fresh runtime cannot be made gives its place back: the next run alone is warm", async () => {
    // attack11: a cold run (beside another) counted as begun, then its context could not be
    // made (the instance's memory spent): left counted, no later run got the template again.
    const engine = await newEngine();
    const held = start(engine, "await host.call('ns', 'x', []); return 1", {
      hold: new Promise<void>((resolve) => setTimeout(resolve, 50)),
    });
    expect(held.run.warm).toBe(true);
    const original = engine.quickjs.newRuntime.bind(engine.quickjs);
    engine.quickjs.newRuntime = (...args) => {
      const rt = original(...args);
      rt.newContext = () => {
        throw new Error("out of memory");
      };
      return rt;
    };
    try {
      expect(() => start(engine, "return 2")).toThrow("out of memory");
    } finally {
      engine.quickjs.newRuntime = original;
    }
    await held.outcome;
    expect(engine.underWay).toBe(0);
    const next = start(engine, "return 3");
    expect(next.run.warm).toBe(true);
    expect(await resultOf(next.outcome)).toBe(3);
  });
});
