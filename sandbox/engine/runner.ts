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
 * and the budget runtime are the same module texts the per-run isolate uses. A caller that gives
 * a run up ends it at once with the key it sent with the run (`end`; issue #40), rather than
 * leave it to its deadline.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { WorkerEntrypoint } from "cloudflare:workers";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import wasmModule from "./quickjs.wasm";
import { readData, storeData } from "./data-cache";
import { MemoryGate } from "./memory-gate";
import { describe, stopMessage } from "./messages";
import { EngineRun } from "./run";
import { WarmEngine } from "./warm-engine";
import type { EngineRunRequest, EngineStop } from "./protocol";
import type { HostBridgeApi } from "../protocol";

let engine: Promise<WarmEngine> | undefined;

/**
 * Runs that their caller may end ({@link EngineRunner.end}), by the key the caller gave with the
 * run. A key is the caller's secret: it crosses only in the caller's own call (never in the
 * request, which the guest reads), and no program reaches this worker's entrypoint, so only the
 * runner (or host) that started a run can end it.
 */
const endable = new Map<string, EngineRun>();

/**
 * Keys whose `end` came before their run had begun here (the run still loading the engine or its
 * data when its caller gave it up): such a run answers `ended` without starting. Oldest dropped
 * past {@link MAX_ENDED_EARLY}; a key is random, so no later run has a key kept here by mistake.
 */
const endedEarly = new Set<string>();
const MAX_ENDED_EARLY = 256;

/** Shortest key that makes a run endable: a guessable key would let a guess end the run. */
const MIN_END_KEY_LENGTH = 32;
/** Longest key kept (a caller's mistake must not cost this worker's memory). */
const MAX_END_KEY_LENGTH = 256;

/** How long `end` waits for the run it ended to be freed before it answers. */
const END_WAIT_MS = 2_000;
/** How often `end` looks whether the run is freed (its own timer: see END_CHECK_MS in run.ts). */
const END_LOOK_MS = 10;

/** Runs begun in this isolate that got the engine's template (`stats`: what tests read). */
let warmRuns = 0;

function isEndKey(key: unknown): key is string {
  return (
    typeof key === "string" && key.length >= MIN_END_KEY_LENGTH && key.length <= MAX_END_KEY_LENGTH
  );
}

/**
 * The WebAssembly engine, instantiated once per isolate (the module is compiled by the
 * platform), with its harness template built (warm-engine.ts).
 */
function loadEngine(): Promise<WarmEngine> {
  if (engine) return engine;
  // The instance's memory grows only as far as its runs' limits allow (memory-gate.ts).
  const gate = new MemoryGate();
  engine = newQuickJSWASMModuleFromVariant(
    newVariant(variant, { wasmModule, wasmMemory: gate.memory }),
  ).then((quickjs) => new WarmEngine(quickjs, gate));
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
   * @param endKey - a secret of the caller's (at least {@link MIN_END_KEY_LENGTH} characters,
   *   random) with which it may end the run early ({@link end}); without one, the run ends only
   *   by itself or at its deadline
   * @returns the guest's `SandboxResponse` as JSON text, or why the engine stopped the run
   */
  async run(
    request: EngineRunRequest,
    host: HostBridgeApi,
    endKey?: unknown,
  ): Promise<string | EngineStop> {
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
    // Ended before it began (its caller gave it up while the engine or its data loaded): it
    // never starts. Started and only marked, it ran until its timer's first look (END_CHECK_MS):
    // its first stretch went on, host calls to a host that had given it up included, and a
    // program busy from its first line held this thread until its whole step budget was spent
    // (attack13). Nothing is awaited from here to its registration below.
    if (isEndKey(endKey) && endedEarly.delete(endKey))
      return { stop: "ended", message: stopMessage("ended", request) };
    let run: EngineRun;
    try {
      run = new EngineRun(quickjs, request, data, hostCall);
    } catch (error) {
      // A fresh runtime or context could not be made (the instance's memory is spent): the
      // run gave its place back (run.ts), and the next run starts from a new instance.
      if (engine === loaded) engine = undefined;
      return { stop: "failed", message: `The engine failed to start the run: ${describe(error)}` };
    }
    if (run.warm) warmRuns++;
    // A key already in use (a caller's mistake: keys are random) ends only the run that has it.
    const key = isEndKey(endKey) && !endable.has(endKey) ? endKey : undefined;
    if (key !== undefined) endable.set(key, run);
    const ended = (async () => {
      try {
        return await run.result;
      } finally {
        if (key !== undefined) endable.delete(key);
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
   * Ends the run started with `endKey` now: its caller no longer waits for it (a runner whose
   * host gave the run up, or the host itself on a cancel). The run stops in its own context
   * within END_CHECK_MS (run.ts) and is freed as any stopped run is: its runtime disposed (or the
   * template given back), its place among the runs under way released, so the next run alone in
   * the engine gets the template again. A run that blocks this thread in one synchronous stretch
   * cannot hear this until it yields; the engine's step budget ends that one.
   * @param endKey - the key given with the run
   * @returns true once the run is freed; false when no run under way has that key (none yet:
   *   one that comes with it later answers `ended` without starting; or it is over)
   */
  async end(endKey: unknown): Promise<boolean> {
    if (!isEndKey(endKey)) return false;
    const run = endable.get(endKey);
    if (!run) {
      if (endedEarly.size >= MAX_ENDED_EARLY) endedEarly.delete(endedEarly.values().next().value!);
      endedEarly.add(endKey);
      return false;
    }
    run.askEnd();
    // Read on this call's own timers: nothing of the run's context is settled from here.
    const until = Date.now() + END_WAIT_MS;
    while (!run.freed && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, END_LOOK_MS));
    return run.freed;
  }

  /**
   * This isolate's engine counts: runs under way now (as {@link underWay}), runs so far that
   * got the engine's template (warm-engine.ts), which only a run alone in the engine gets, and
   * whether the engine's memory gate found the allocator's break (heap-break.ts).
   */
  async stats(): Promise<{ underWay: number; warmRuns: number; heapBreak: boolean }> {
    const loaded = engine ? await engine.catch(() => undefined) : undefined;
    return {
      underWay: await this.underWay(),
      warmRuns,
      heapBreak: loaded?.gate?.watchingBreak === true,
    };
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
