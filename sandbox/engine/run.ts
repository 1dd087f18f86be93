/**
 * One run of the shared sandbox worker: its engine runtime and context (heap, globals,
 * prototypes: its own, or the engine's template restored for it, warm-engine.ts), limits,
 * module loader, host calls and timers, and the cleanup that frees them. See runner.ts for
 * the guarantees; the values it passes to and from the engine are converted by values.ts.
 */
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import modules from "./engine-modules.json";
import type { EngineRunRequest, EngineStop } from "./protocol";
import { describe, stopMessage } from "./messages";
import { decodeUtf8, newDataArray, readHostBytes, readHostCall, settleWithReply } from "./values";
import { newDeferred, runPendingJobs } from "./ffi";
import { MemoryLook } from "./memory-look";
import type { GateShare } from "./memory-gate";
import { WarmEngine, type EngineTemplate, type TemplateTenant } from "./warm-engine";
import type { HostBridgeApi, HostRefusal, HostReply } from "../protocol";

/** Engine module texts shipped beside the runner (see src/executor/shared-worker/shared-worker-code.ts). */
const TEXTS = modules as Record<
  "guest.js" | "runtime.js" | "ext-openapi.js" | "ext-request.js" | "ext-skills.js",
  string
>;
/** Interrupts the guest may use to drain its logs after the budget stopped the program. */
const FINISH_GRACE = 200;

/**
 * Timers and host calls one run may have pending in the runner at once. Each costs the shared
 * worker's own V8 heap about 1.2 KB, outside the engine's memory limit (measured: 250,000 timers
 * or 190,000 concurrent calls held 300 MB of the one isolate every run shares, past a Worker's
 * 128 MB); 10,000 is about 12 MB, and far more than a program waits on usefully.
 */
export const MAX_PENDING = 10_000;

/**
 * Bytes of binary values one run's host calls may hold in the runner, from their copy out of the
 * engine to the host's reply (the host bridge's in-flight bound, `MAX_IN_FLIGHT_CHARS`, or one
 * call's `maxCallBytes` when larger). The guest copies a value for each call natively, at almost
 * no step cost, and the copies wait for the runner's next turn: without a bound, 250 calls of one
 * 4 MB Uint8Array, not awaited, put 1 GB through the shared worker every run shares
 * (test/workers/executor/hostile/binary-values.test.ts).
 */
export const MAX_HELD_BYTES = 16 * 1_048_576;

/**
 * How often a run looks whether its caller asked to end it ({@link EngineRun.askEnd}). The ask
 * arrives in another call's context, which may settle nothing of this run (workerd runs a
 * promise's continuations in the context that made it, and a context that is gone runs none),
 * so the run's own context looks on its own timer. A run waiting on nothing has no other timer.
 */
export const END_CHECK_MS = 100;

/**
 * One run's engine runtime, context and pending work. Given a {@link WarmEngine}, the run gets
 * its template (the harness already compiled, the memory written back to the template's copy)
 * when it is alone in the engine, else a fresh runtime; given a bare engine instance (tests),
 * always a fresh runtime.
 */
export class EngineRun {
  readonly result: Promise<string | EngineStop>;
  /** Whether the run got the engine's template (see warm-engine.ts) rather than a fresh runtime. */
  readonly warm: boolean;
  private readonly rt: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  private readonly engine: WarmEngine | undefined;
  private readonly template: EngineTemplate | undefined;
  /** The guest module's namespace, once evaluated (the template's, on a warm run). */
  private exports: QuickJSHandle | undefined;
  private readonly deferreds = new Set<QuickJSDeferredPromise>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly handles: QuickJSHandle[] = [];
  private interrupts = 0;
  /** The run's looks at what it holds (memory-look.ts). */
  private readonly memory: MemoryLook;
  /** The run's part of the engine's memory (memory-gate.ts): given back once it is freed. */
  private readonly share: GateShare | undefined;
  /**
   * The host's refusal every later call of the run gets too (`spent`: HostRefusal in
   * protocol.ts), once it came: later calls are answered with it here.
   */
  private spent: HostReply | undefined;
  /** Console lines parsed for host calls so far: an honest guest sends at most `maxLogBytes`. */
  private logLines = 0;
  /** Bytes of binary values the run's host calls hold until the host answers them. */
  private heldBytes = 0;
  private interruptLimit: number;
  private stopped: EngineStop["stop"] | undefined;
  private closed = false;
  private disposed = false;
  private disposedOk = false;
  /** Its caller asked to end it ({@link askEnd}): the run's own timer ends it. */
  private endAsked = false;
  /** An engine call threw from inside the engine (not a JS exception): its state is suspect. */
  private broken = false;
  private settle!: (value: string | EngineStop) => void;
  private runPromise: QuickJSHandle | undefined;

  constructor(
    engine: QuickJSWASMModule | WarmEngine,
    private readonly request: EngineRunRequest,
    private readonly data: readonly (string | Uint8Array)[],
    private readonly hostCall: HostBridgeApi["call"],
  ) {
    this.interruptLimit = request.maxInterrupts;
    this.result = new Promise((resolve) => (this.settle = resolve));
    const texts: Record<string, string> = { ...TEXTS, "user.js": request.userModule };
    const load = (name: string): string | { error: Error } =>
      Object.hasOwn(texts, name)
        ? texts[name]!
        : { error: new Error(`Module "${name}" is not available in the sandbox.`) };
    const interrupt = (): boolean => {
      if (++this.interrupts <= this.interruptLimit && !this.stepOverMemory()) return false;
      this.stopped ??= "interrupted";
      return true;
    };
    this.engine = engine instanceof WarmEngine ? engine : undefined;
    const tenant: TemplateTenant = {
      host: (ns, name, args, logs, bytes) => this.hostFunction(ns, name, args, logs, bytes),
      timer: (ms) => this.timerFunction(ms),
      charge: (interrupts) => this.chargeFunction(interrupts),
      interrupt,
      load,
    };
    this.share = this.engine?.gate?.hold(request.memoryBytes);
    this.memory = new MemoryLook(request.memoryBytes, this.engine?.gate, this.share);
    // Every call of this run into the engine enters first: a growth is put to the run that
    // asked (memory-gate.ts). Runs take turns in the engine only between such calls.
    this.share?.enter();
    this.template = this.engine?.begin(tenant, request);
    this.warm = this.template !== undefined;
    if (this.template) {
      this.rt = this.template.rt;
      this.ctx = this.template.ctx;
      this.exports = this.template.exports;
    } else {
      const rt = (this.rt = (this.engine?.quickjs ?? (engine as QuickJSWASMModule)).newRuntime());
      try {
        rt.setMemoryLimit(request.memoryBytes);
        rt.setMaxStackSize(request.stackBytes);
        rt.setInterruptHandler(interrupt);
        rt.setModuleLoader(load);
        this.ctx = rt.newContext();
      } catch (error) {
        // Counted as begun: left counted, the instance would never give its template again.
        rt.dispose();
        this.engine?.end(undefined);
        this.share?.release();
        throw error;
      }
    }
    this.timers.add(
      setTimeout(() => this.stop("timeout", "The run passed its deadline."), request.timeoutMs),
    );
    this.watchForEnd();
    try {
      this.start();
    } catch (error) {
      this.fail(error);
    }
  }

  /**
   * Asks the run to end now: its caller no longer waits for it (a runner whose host gave the run
   * up, sandbox/engine/runner.ts `end`). Only marks it, and may be called from any context: the
   * run's own timer ({@link END_CHECK_MS}) or its next event (a host's answer, a timer of its)
   * stops it in the run's context, and the run's call then frees it as after any stop. A run
   * that is already over is left as it is.
   */
  askEnd(): void {
    this.endAsked = true;
  }

  /** Whether the run's engine state is freed (its runtime disposed, its place given back). */
  get freed(): boolean {
    return this.disposed;
  }

  /** Looks every {@link END_CHECK_MS} whether the run was asked to end, on the run's own timers. */
  private watchForEnd(): void {
    const look = setTimeout(() => {
      this.timers.delete(look);
      if (this.closed) return;
      if (this.endAsked) return this.stop("ended", "");
      this.watchForEnd();
    }, END_CHECK_MS);
    this.timers.add(look);
  }

  /** An engine call threw (e.g. the host's stack ran out inside it): drop the engine. */
  private fail(error: unknown): void {
    this.broken = true;
    this.stop("failed", `The engine failed: ${describe(error)}`);
  }

  private start(): void {
    const ctx = this.ctx;
    if (!this.exports) this.exports = this.keep(this.evalGuest());
    const run = this.keep(ctx.getProp(this.exports, "run"));
    const data = this.keep(newDataArray(ctx, this.data));
    const { userModule: _code, extensions, ...rest } = this.request;
    const json = JSON.stringify({
      ...rest,
      extensions: extensions.map((e) => ({ name: e.name, namespace: e.namespace })),
    });
    const arg = this.keep(ctx.newString(json));
    this.runPromise = this.keep(ctx.unwrapResult(ctx.callFunction(run, ctx.undefined, arg, data)));
    this.pumpJobs();
  }

  /** A fresh runtime's harness: its native functions, then `guest.js` compiled and evaluated. */
  private evalGuest(): QuickJSHandle {
    const ctx = this.ctx;
    const host = ctx.newFunction("host", (ns, name, args, logs, ...bytes) =>
      this.hostFunction(ns, name, args, logs, bytes),
    );
    const timer = ctx.newFunction("timer", (ms) => this.timerFunction(ms));
    const utf8 = ctx.newFunction("utf8", (buffer, offset, length) =>
      decodeUtf8(ctx, buffer, offset, length),
    );
    const charge = ctx.newFunction("charge", (interrupts) => this.chargeFunction(interrupts));
    ctx.setProp(ctx.global, "__cm$host", host);
    ctx.setProp(ctx.global, "__cm$timer", timer);
    ctx.setProp(ctx.global, "__cm$utf8", utf8);
    ctx.setProp(ctx.global, "__cm$charge", charge);
    charge.dispose();
    host.dispose();
    timer.dispose();
    utf8.dispose();
    return ctx.unwrapResult(ctx.evalCode(TEXTS["guest.js"], "guest.js", { type: "module" }));
  }

  /** Runs queued engine jobs, then settles the run if its promise settled. */
  private pump(): void {
    try {
      this.pumpJobs();
    } catch (error) {
      this.fail(error);
    }
  }

  private pumpJobs(): void {
    if (this.closed) return;
    this.share?.enter();
    // Heard at every event of the run too (a host's answer, one of its timers), not only on its
    // own look: no timer fires while a run's calls ping-pong with a host in the same process, so
    // a loop of calls went on until its step budget (attack13).
    if (this.endAsked) return this.stop("ended", "");
    // Took past its room in an earlier turn, without a step check since (memory-gate.ts): not
    // one more turn, in which its neighbours run out of memory.
    if (this.share?.pastRoom) return this.stop("memory", "");
    // Not rt.executePendingJobs(): it leaks an engine context when a job grows the memory.
    // Job by job, looking at the budget between two: the engine's interrupt alone did not end
    // every loop that catches refused calls (see runPendingJobs).
    runPendingJobs(this.rt, () => this.stopped !== undefined || this.endAsked);
    if (this.stopped) return this.stop(this.stopped, "");
    if (this.endAsked) return this.stop("ended", "");
    if (!this.runPromise) return;
    const state = this.ctx.getPromiseState(this.runPromise);
    if (state.type === "pending") return;
    if (state.type === "fulfilled") {
      const text = this.ctx.typeof(state.value) === "string" ? this.ctx.getString(state.value) : "";
      state.value.dispose();
      this.closed = true;
      return this.settle(text);
    }
    const error = this.ctx.dump(state.error) as { message?: string } | undefined;
    state.error.dispose();
    this.stop("failed", `The sandbox harness failed: ${describe(error?.message ?? error)}`);
  }

  /** Ends the run with a stop; drains what the guest captured when the engine still can. */
  private stop(kind: EngineStop["stop"], message: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stopped = kind;
    this.share?.enter();
    const out: EngineStop = {
      stop: kind,
      message: message || stopMessage(kind, this.request),
    };
    try {
      if (this.broken) throw new Error("The engine is broken.");
      this.interruptLimit = this.interrupts + FINISH_GRACE;
      const exports = this.exports;
      if (exports) {
        const finish = this.ctx.getProp(exports, "finish");
        const partial = this.ctx.callFunction(finish, this.ctx.undefined);
        finish.dispose();
        if (!partial.error) {
          if (this.ctx.typeof(partial.value) === "string")
            out.partial = this.ctx.getString(partial.value);
          partial.value.dispose();
        } else partial.error.dispose();
      }
    } catch {
      // The engine cannot answer any more (out of memory): the stop is reported without logs.
    }
    this.settle(out);
  }

  private hostFunction(
    ns: QuickJSHandle,
    name: QuickJSHandle,
    args: QuickJSHandle,
    logs: QuickJSHandle | undefined,
    bytes: QuickJSHandle[],
  ): QuickJSHandle {
    const ctx = this.ctx;
    const deferred = newDeferred(ctx);
    if (this.deferreds.size >= MAX_PENDING) {
      // Refused at once, as the host refuses a call over a limit: settled, nothing stays here.
      settleWithReply(ctx, deferred, { error: { name: "LimitError", message: pendingMessage() } });
      return deferred.handle;
    }
    // A call carrying console lines still goes to the host, which takes the lines (and refuses
    // it the same way): the guest handed them over with the call. Their number is bounded by
    // `maxLogBytes`, so such round trips are too.
    if (this.spent !== undefined && (logs === undefined || ctx.typeof(logs) !== "string")) {
      // Without a round trip, so charged as the V8 harness charges a refusal it answers itself:
      // an interrupt (~10,000 steps). A loop catching it would otherwise pay only its own few
      // steps. Past the budget it marks the run stopped, which ends it before the next job.
      if (++this.interrupts > this.interruptLimit) this.stopped ??= "interrupted";
      settleWithReply(ctx, deferred, this.spent);
      return deferred.handle;
    }
    // The binary values beside the text, copied out of the engine's memory now (the guest made
    // them fresh; the host checks them again). Refused at once when they are not what the guest
    // sends, before the call reaches the host: as a call the host refuses, nothing stays here.
    const buffers = readHostBytes(ctx, bytes, this.request.maxCallBytes);
    if (typeof buffers === "string") {
      settleWithReply(ctx, deferred, { error: { name: "TypeError", message: buffers } });
      return deferred.handle;
    }
    let held = 0;
    for (const buffer of buffers ?? []) held += buffer.byteLength;
    if (held > 0 && this.heldBytes + held > Math.max(MAX_HELD_BYTES, this.request.maxCallBytes)) {
      settleWithReply(ctx, deferred, {
        error: { name: "LimitError", message: heldMessage(this.request.maxCallBytes) },
      });
      return deferred.handle;
    }
    this.heldBytes += held;
    this.deferreds.add(deferred);
    const { call, logsParsed } = readHostCall(
      ctx,
      ns,
      name,
      args,
      logs,
      Math.max(0, this.request.maxLogBytes - this.logLines),
      buffers,
    );
    this.logLines += logsParsed;
    Promise.resolve()
      .then(() => this.hostCall(...call))
      .then(
        (reply: HostReply) => {
          this.heldBytes -= held;
          this.answer(deferred, reply);
        },
        (error: unknown) => {
          this.heldBytes -= held;
          this.answer(deferred, { error: { name: "Error", message: describe(error) } });
        },
      );
    return deferred.handle;
  }

  private answer(deferred: QuickJSDeferredPromise, reply: HostReply): void {
    if (this.closed) return;
    this.share?.enter();
    if (typeof reply === "object" && reply !== null && (reply as HostRefusal).spent === true)
      this.spent = reply;
    settleWithReply(this.ctx, deferred, reply);
    this.deferreds.delete(deferred);
    deferred.dispose();
    this.pump();
  }

  private timerFunction(ms: QuickJSHandle): QuickJSHandle {
    // Thrown from the guest's setTimeout, so the program sees its timer was not set.
    if (this.deferreds.size >= MAX_PENDING) throw new RangeError(pendingMessage());
    const deferred = newDeferred(this.ctx);
    this.deferreds.add(deferred);
    const delay = Math.max(
      0,
      Math.min(Number(this.ctx.getNumber(ms)) || 0, this.request.timeoutMs),
    );
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      this.share?.enter();
      deferred.resolve();
      this.deferreds.delete(deferred);
      deferred.dispose();
      this.pump();
    }, delay);
    this.timers.add(timer);
    return deferred.handle;
  }

  /**
   * Adds native work of built-ins (sandbox/native-charges.ts) to the run's interrupt count. Once the
   * budget is spent it throws: the built-in's caller sees an error, and the engine's next step
   * check (at most ~10,000 cheap steps later) ends the run, whatever the program catches.
   */
  private chargeFunction(interrupts: QuickJSHandle): void {
    const charged = Math.max(0, Math.floor(this.ctx.getNumber(interrupts)) || 0);
    this.interrupts += charged;
    if (this.interrupts > this.interruptLimit) {
      this.stopped ??= "interrupted";
      throw new RangeError(stopMessage("interrupted", this.request));
    }
    if (!this.memory.afterCharge(this.ctx, charged)) return;
    this.stopped ??= "memory";
    this.interruptLimit = this.interrupts;
    throw new RangeError(stopMessage("memory", this.request));
  }

  /**
   * The memory look from the engine's step check (memory-look.ts `atStep`).
   * @returns true when the run holds more than its limit: the step check ends it then
   */
  private stepOverMemory(): boolean {
    if (this.stopped || this.closed) return false;
    if (!this.memory.atStep(this.ctx)) return false;
    this.stopped ??= "memory";
    this.interruptLimit = this.interrupts;
    return true;
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle);
    return handle;
  }

  /**
   * Frees the run's engine. Returns false when the engine is no longer trustworthy (freeing
   * failed), so the caller drops it and the next run gets a new instance.
   */
  dispose(): boolean {
    if (this.disposed) return this.disposedOk;
    this.disposed = true;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    if (this.broken) {
      this.share?.release();
      return (this.disposedOk = false);
    }
    // The frees are this run's: what they give back at the top of the heap is put to it, and
    // its part of the gate is given back after them (memory-gate.ts).
    this.share?.enter();
    try {
      for (const deferred of this.deferreds) deferred.dispose();
      for (const handle of this.handles) if (handle.alive) handle.dispose();
      // The template's runtime stays: the next run alone in the engine writes its memory back.
      if (!this.template) {
        this.ctx.dispose();
        this.rt.dispose();
      }
      this.engine?.end(this.template);
      return (this.disposedOk = true);
    } catch {
      return (this.disposedOk = false);
    } finally {
      this.share?.release();
    }
  }
}

function heldMessage(maxCallBytes: number): string {
  return `The run's host calls still running would hold more than ${Math.max(MAX_HELD_BYTES, maxCallBytes)} bytes of binary values: await some calls before starting more.`;
}

function pendingMessage(): string {
  return `The run has ${MAX_PENDING} timers and host calls pending: await some before starting more.`;
}
