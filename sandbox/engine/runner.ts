/**
 * Main module of the SHARED sandbox worker: one stable Dynamic Worker (loaded with
 * `LOADER.get(id, …)`) that runs every program as data inside QuickJS compiled to WebAssembly.
 * The Worker itself never compiles code from strings (the platform forbids it); the engine is
 * what interprets the program.
 *
 * Per run: fresh engine globals, prototypes and heap (nothing a run does is visible to the next
 * run): the engine's template, its memory written back to the bytes it had before any run, for
 * a run alone in the engine, else a new runtime and context (warm-engine.ts), a memory limit, a stack limit, an interrupt handler
 * that stops the run after `maxInterrupts` calls (the engine calls it every ~10k steps and
 * during regular-expression backtracking, so `while(true){}` and catastrophic patterns end),
 * a wall-clock deadline for runs that wait forever, and the host bridge as the only way out
 * (this worker has `globalOutbound: null` and no bindings). The guest harness (guest.ts)
 * and the budget runtime are the same module texts the per-run isolate uses.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { WorkerEntrypoint } from "cloudflare:workers";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import wasmModule from "./quickjs.wasm";
import { readData, storeData } from "./data-cache";
import { describe } from "./messages";
import { EngineRun } from "./run";
import { WarmEngine } from "./warm-engine";
import type { EngineRunRequest, EngineStop } from "./protocol";
import type { HostBridgeApi } from "../protocol";

let engine: Promise<WarmEngine> | undefined;

/**
 * The WebAssembly engine, instantiated once per isolate (the module is compiled by the
 * platform), with its harness template built (warm-engine.ts).
 */
function loadEngine(): Promise<WarmEngine> {
  engine ??= newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule })).then(
    (quickjs) => new WarmEngine(quickjs),
  );
  return engine;
}

/** RPC entrypoint of the shared sandbox worker. */
export default class EngineRunner extends WorkerEntrypoint {
  /**
   * Loads the engine and builds its template now, before any run needs them: a local sandbox
   * runner calls this when it is started (src/runner.ts, `POST /warm`), so a fresh runner's
   * first run does not wait for them.
   */
  async warm(): Promise<void> {
    try {
      await loadEngine();
    } catch {
      // The next run loads it again and reports the failure.
      engine = undefined;
    }
  }

  /**
   * Runs one program in the engine's restored template or a fresh engine context.
   * @param request - the instrumented program and the run's limits
   * @param host - the run's host bridge (an RpcTarget on the host)
   * @returns the guest's `SandboxResponse` as JSON text, or why the engine stopped the run
   */
  async run(request: EngineRunRequest, host: HostBridgeApi): Promise<string | EngineStop> {
    const hostCall = host.call;
    let quickjs: WarmEngine;
    // The instance this run uses: a run on an instance already dropped must not drop its
    // successor when its own dispose fails (attack11).
    let loaded: Promise<WarmEngine> | undefined;
    try {
      quickjs = await (loaded = loadEngine());
    } catch (error) {
      engine = undefined;
      return { stop: "failed", message: `The engine failed to load: ${describe(error)}` };
    }
    const data: (string | Uint8Array)[] = [];
    for (const ext of request.extensions) {
      const value =
        ext.key === undefined
          ? ext.data
          : ext.data !== undefined
            ? storeData(ext.key, ext.data)
            : readData(ext.key);
      if (value === undefined)
        return { stop: "missing", message: `The shared worker does not hold ${ext.key}.` };
      data.push(value);
    }
    let run: EngineRun;
    try {
      run = new EngineRun(quickjs, request, data, hostCall);
    } catch (error) {
      // A fresh runtime or context could not be made (the instance's memory is spent): the
      // run gave its place back (run.ts), and the next run starts from a new instance.
      if (engine === loaded) engine = undefined;
      return { stop: "failed", message: `The engine failed to start the run: ${describe(error)}` };
    }
    const ended = (async () => {
      try {
        return await run.result;
      } finally {
        if (!run.dispose() && engine === loaded) engine = undefined;
      }
    })();
    // Kept past this call: a caller that gives up (the host at its timeout, a runner whose run
    // was cancelled) cancels the call, and workerd then drops this request's context with its
    // timers, the run's deadline among them, so the run was never freed: its runtime stayed in
    // the engine's memory and the engine counted it under way for good, so no later run got
    // the template (attack11). The run's own deadline ends it; this keeps that deadline alive.
    this.ctx.waitUntil(ended.then(noop, noop));
    return await ended;
  }

  /**
   * Runs this engine instance counts under way (0 when it has not loaded): what a run that was
   * given up on must come back from, or the template serves no run again.
   */
  async underWay(): Promise<number> {
    return engine ? ((await engine.catch(() => undefined))?.underWay ?? 0) : 0;
  }
}

function noop(): void {
  // the run's outcome went to its caller, if it still waited
}
