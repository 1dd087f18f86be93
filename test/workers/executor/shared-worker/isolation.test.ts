/**
 * Runs of the shared-worker executor share one Dynamic Worker, yet a run cannot observe anything
 * a previous or concurrent run did: each gets a fresh engine runtime and context, or the engine's
 * template with its memory written back to the bytes it had before any run. Also: the
 * worker is really shared (loaded once for many runs), and the sandbox has no network, no
 * bindings and no code generation from strings.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  SHARED_ENGINE_VERSION,
  sharedWorkerCode,
  sharedWorkerId,
} from "../../../../src/executor/shared-worker/shared-worker-code";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";
import { loadSpec } from "../../../../src/openapi/openapi-spec";
import { packSpec } from "../../../../src/openapi/spec-pack";

const executor = new SharedWorkerExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

describe("shared-worker runs are isolated", () => {
  it("does not leak globals, prototype changes or replaced built-ins to the next run", async () => {
    const first = await executor.execute({
      code: [
        "Object.prototype.polluted = 'yes';",
        "Array.prototype.map = () => 'hijacked';",
        "JSON.stringify = () => '\"forged\"';",
        "Math.random = () => 4;",
        "globalThis.leak = 42;",
        "Object.defineProperty(globalThis, 'codemode', { value: 'taken' });",
        "return ({}).polluted",
      ].join("\n"),
    });
    expect(first).toMatchObject({ status: "ok", result: "yes" });
    const second = await executor.execute({
      code: "return { polluted: ({}).polluted, map: [1, 2].map((x) => x * 2), json: JSON.stringify({ a: 1 }), random: Math.random() < 1, leak: typeof leak, codemode: typeof codemode }",
    });
    expect(second).toMatchObject({
      status: "ok",
      result: {
        map: [2, 4],
        json: '{"a":1}',
        random: true,
        leak: "undefined",
        codemode: "undefined",
      },
    });
    expect((second.result as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("does not leak changes to what the harness and the extensions captured (the engine's template)", async () => {
    // Runs alone in the engine share one template whose harness and extension modules were
    // evaluated once (sandbox/engine/warm-engine.ts): each poisons what those hold.
    const spec = loadSpec({
      openapi: "3.0.0",
      info: { title: "kept", version: "1" },
      paths: { "/a": { get: { operationId: "getA", responses: { 200: { description: "ok" } } } } },
    });
    const extensions = [{ name: "openapi" as const, data: packSpec(spec.compact) as Uint8Array }];
    const read =
      "const spec = await codemode.spec(); return { title: spec.info.title, id: spec.paths['/a'].get.operationId, chained: await Promise.resolve(1).then((x) => x + 1), mark: typeof Symbol.for('cm.mark').description, defined: Object.defineProperty({}, 'x', { value: 1 }).x, has: new WeakSet().has({}), poisoned: typeof poisoned }";
    const before = await executor.execute({ code: read, extensions });
    expect(before).toMatchObject({ status: "ok" });
    const hostile = await executor.execute({
      extensions,
      code: [
        "const spec = await codemode.spec(); spec.info.title = 'forged';",
        "const then = Promise.prototype.then;",
        "Promise.prototype.then = function (a, b) { globalThis.poisoned = 1; return then.call(this, a, b) };",
        "Object.defineProperty = () => { throw new Error('poisoned') };",
        "WeakSet.prototype.has = () => true; WeakSet.prototype.add = () => {};",
        "Reflect.apply = () => 'forged'; Reflect.set = () => true;",
        "globalThis.poisoned = 1;",
        "return 'poisoned'",
      ].join("\n"),
    });
    expect(hostile).toMatchObject({ status: "ok", result: "poisoned" });
    const after = await executor.execute({ code: read, extensions });
    expect(after).toMatchObject({
      status: "ok",
      result: {
        title: "kept",
        id: "getA",
        chained: 2,
        defined: 1,
        has: false,
        poisoned: "undefined",
      },
    });
    expect(after.result).toEqual(before.result);
  });

  it("keeps concurrent runs apart: each sees only its own globals", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        executor.execute({
          code: `globalThis.mine = ${i}; await new Promise((r) => setTimeout(r, 20)); return { got: await codemode.id(${i}), mine: globalThis.mine }`,
          namespaces: { codemode: { id: (args: unknown[]) => args[0] } },
        }),
      ),
    );
    outcomes.forEach((outcome, i) =>
      expect(outcome).toMatchObject({ status: "ok", result: { got: i, mine: i } }),
    );
  });

  it("never runs a previous run's timer in a later run", async () => {
    const first = await executor.execute({
      code: "setTimeout(() => { globalThis.late = 'from run 1' }, 50); return 'done'",
    });
    expect(first).toMatchObject({ status: "ok", result: "done" });
    const second = await executor.execute({
      code: "await new Promise((r) => setTimeout(r, 150)); return typeof late",
    });
    expect(second).toMatchObject({ status: "ok", result: "undefined" });
  });
});

describe("one stable shared worker", () => {
  it("loads its Dynamic Worker once for many runs, under one id", async () => {
    const ids: string[] = [];
    let loads = 0;
    const loader = {
      get: (id: string, code: () => WorkerLoaderWorkerCode) => {
        ids.push(id);
        return env.LOADER.get(id, () => {
          loads++;
          return code();
        });
      },
      load: () => {
        throw new Error("the shared executor must not load a worker per run");
      },
    } as unknown as WorkerLoader;
    const counted = new SharedWorkerExecutor({ loader, name: `count-${Date.now()}` });
    for (let i = 0; i < 5; i++) {
      expect(await counted.execute({ code: `return ${i} * 2` })).toMatchObject({
        status: "ok",
        result: i * 2,
      });
    }
    expect(new Set(ids).size).toBe(1);
    expect(loads).toBe(1);
  });
});

describe("the shared worker's sandbox", () => {
  it("is configured with no network, no bindings and no compatibility flags, under a versioned id", () => {
    const settings = { compatibilityDate: "2026-08-01", cpuMs: 30_000 };
    const code = sharedWorkerCode(settings);
    expect(code.globalOutbound).toBeNull();
    expect(code.env).toEqual({});
    expect(code.compatibilityFlags).toBeUndefined();
    expect(code.limits).toEqual({ cpuMs: 30_000 });
    expect(Object.keys(code.modules).toSorted()).toEqual([
      "engine-modules.json",
      "quickjs.wasm",
      "runner.js",
    ]);
    expect(sharedWorkerId("prod", settings)).toContain(SHARED_ENGINE_VERSION);
    expect(sharedWorkerId("prod", settings)).not.toBe(sharedWorkerId("staging", settings));
  });

  it("has no network, no bindings and no code generation from strings", async () => {
    const outcome = await executor.execute({
      code: "let f; try { await fetch('http://127.0.0.1:1') } catch (e) { f = e.message } let ev; try { ev = eval('1+1') } catch (e) { ev = e.name } let fn; try { fn = (function () {}).constructor('return 1')() } catch (e) { fn = e.name } return { f, ev, fn, loader: typeof LOADER, env: typeof env }",
    });
    expect(outcome).toMatchObject({
      status: "ok",
      result: {
        f: expect.stringMatching(/^fetch\(\) is not available here: programs have no network/),
        ev: "EvalError",
        fn: "EvalError",
        loader: "undefined",
        env: "undefined",
      },
    });
  });
});
