/**
 * The two engine calls the runner makes that quickjs-emscripten (0.32.0) gets wrong when the
 * WebAssembly memory grows during the call (its issue #240; the fix, PR #248, is unreleased):
 * running pending jobs, and creating a promise for the guest. Both read an out-parameter
 * through a typed-array view made BEFORE the call; growing the memory replaces its buffer and
 * detaches that view, so the read gives `undefined`.
 *
 * - `executePendingJobs` then takes `undefined` for the context of the last job and "wraps" it
 *   by creating a brand-new engine context nobody owns. Any job that allocates past the
 *   memory's free room (a 12 MB string or ArrayBuffer, a big array) does it, and most of a
 *   program runs in jobs. Freeing the runtime later trips QuickJS's leak assertion
 *   (`list_empty(&rt->gc_obj_list)` in JS_FreeRuntime): emscripten aborts, and the runner
 *   drops the whole engine instance.
 * - `newPromise` then builds a deferred whose resolve and reject functions are `undefined`:
 *   the host's answer can never settle the guest's promise, and the functions leak.
 *
 * Here every out-parameter is read through a view of the memory as it is AFTER the call.
 */
import {
  QuickJSDeferredPromise,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
} from "quickjs-emscripten-core";

/** The engine module's exports used here (not public in quickjs-emscripten). */
interface EngineModule {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

/** The engine's C interface used here (not public in quickjs-emscripten). */
interface EngineFfi {
  QTS_ExecutePendingJob(rt: number, maxJobs: number, lastJobContext: number): number;
  QTS_IsJobPending(rt: number): number;
  QTS_FreeValuePointerRuntime(rt: number, value: number): void;
  QTS_NewPromiseCapability(ctx: number, resolveFunctionsOut: number): number;
  QTS_RuntimeComputeMemoryUsage(rt: number, ctx: number): number;
}

/** What a runtime and a context hold privately: the module, the C interface, the pointers. */
interface Internals {
  module: EngineModule;
  ffi: EngineFfi;
  rt: { value: number };
  ctx?: { value: number };
  getMemory?(rt: number): { heapValueHandle(pointer: number): QuickJSHandle };
}

/**
 * The private parts of a quickjs-emscripten runtime or context, checked: a new library version
 * that renames them must fail every run at once with this message, not misbehave.
 */
function internalsOf(engineObject: QuickJSRuntime | QuickJSContext): Internals {
  const internals = engineObject as unknown as Partial<Internals>;
  if (
    typeof internals.module?._malloc !== "function" ||
    typeof internals.ffi?.QTS_ExecutePendingJob !== "function" ||
    typeof internals.ffi?.QTS_IsJobPending !== "function" ||
    typeof internals.rt?.value !== "number"
  )
    throw new Error(
      "quickjs-emscripten-core's internals changed (sandbox/engine/ffi.ts reads module, ffi and rt): keep it at 0.32.0 or update ffi.ts.",
    );
  return internals as Internals;
}

/** Writes zero to the 32-bit pointers at `pointer`. */
function clearPointers(module: EngineModule, pointer: number, count: number): void {
  module.HEAPU8.fill(0, pointer, pointer + 4 * count);
}

/** The 32-bit pointers at `pointer`, read from the memory as it is now. */
function readPointers(module: EngineModule, pointer: number, count: number): number[] {
  const view = new DataView(module.HEAPU8.buffer);
  return Array.from({ length: count }, (_, i) => view.getUint32(pointer + 4 * i, true));
}

/**
 * Runs every pending job of `runtime` until none is left or one throws (as
 * `runtime.executePendingJobs()` does), and frees the engine's result: the number of jobs, or
 * the exception a job threw (the run reads its outcome from its own promise, not from here).
 * Given `stopped`, runs them one at a time (past a job that threw too) and asks it before each: a
 * run whose budget is spent
 * ends between two jobs, whatever its program catches. The engine's "interrupted" exception alone
 * does not always end it: landing at some steps of a loop that awaits refused host calls, it was
 * caught by the program, which went on, one interrupt per 10,000 steps, until the operation
 * budget (QuickJS marks it uncatchable with a flag the next throw clears; which step lets the
 * program see it is not pinned down: test/unit/sandbox/engine/run-caught-interrupt.test.ts).
 * @param runtime - the run's engine runtime
 * @param stopped - whether to leave the remaining jobs (the run is over)
 * @returns the engine context the last job ran in, 0 when none ran (a run has one context)
 */
export function runPendingJobs(runtime: QuickJSRuntime, stopped?: () => boolean): number {
  const { module, ffi, rt } = internalsOf(runtime);
  const out = module._malloc(4);
  clearPointers(module, out, 1);
  try {
    if (!stopped) {
      const value = ffi.QTS_ExecutePendingJob(rt.value, -1, out);
      ffi.QTS_FreeValuePointerRuntime(rt.value, value);
    } else {
      while (!stopped() && ffi.QTS_IsJobPending(rt.value)) {
        const value = ffi.QTS_ExecutePendingJob(rt.value, 1, out);
        ffi.QTS_FreeValuePointerRuntime(rt.value, value);
      }
    }
    return readPointers(module, out, 1)[0]!;
  } finally {
    module._free(out);
  }
}

/**
 * A new engine promise with its resolve and reject functions (as `context.newPromise()`).
 * @param context - the run's engine context
 * @returns the deferred promise; the caller disposes of it
 */
export function newDeferred(context: QuickJSContext): QuickJSDeferredPromise {
  const internals = internalsOf(context);
  const { module, ffi, rt } = internals;
  const memory = internals.getMemory!(rt.value);
  const out = module._malloc(8);
  clearPointers(module, out, 2);
  try {
    const promise = memory.heapValueHandle(ffi.QTS_NewPromiseCapability(internals.ctx!.value, out));
    const [resolve, reject] = readPointers(module, out, 2);
    return new QuickJSDeferredPromise({
      context,
      promiseHandle: promise,
      resolveHandle: memory.heapValueHandle(resolve!),
      rejectHandle: memory.heapValueHandle(reject!),
    });
  } finally {
    module._free(out);
  }
}

/**
 * The engine's linear memory as it is now (a new view after every growth).
 * @param runtime - any runtime of the engine instance
 */
export function engineMemory(runtime: QuickJSRuntime): Uint8Array {
  return internalsOf(runtime).module.HEAPU8;
}

/**
 * The engine's allocator, for a block no runtime owns (heap-break.ts).
 * @param runtime - any runtime of the engine instance
 */
export function engineAllocator(runtime: QuickJSRuntime): {
  malloc(bytes: number): number;
  free(pointer: number): void;
} {
  const { module } = internalsOf(runtime);
  return { malloc: (bytes) => module._malloc(bytes), free: (pointer) => module._free(pointer) };
}

/**
 * The engine's pointer to a context's C struct.
 * @param context - a context of the engine instance
 */
export function contextPointer(context: QuickJSContext): number {
  return internalsOf(context).ctx!.value;
}

/**
 * What a context's runtime holds now, as QuickJS counts it by walking what is alive
 * (`JS_ComputeMemoryUsage`): `memory_used_size` in bytes (objects, strings, array and
 * ArrayBuffer data) and `obj_count`. Not the runtime's own `malloc_size`, which the memory limit
 * checks: in this WebAssembly build QuickJS cannot read an allocation's size
 * (`js_malloc_usable_size` is 0 under Emscripten), so that count grows by 8 bytes an allocation
 * and the limit bounds only each allocation alone, never their sum (quickjs-emscripten issues
 * #206, #271). The result object is made in the run's own context (not the runtime's "system"
 * context, which a warm template's memory copy would not know), and freed here. Its cost grows
 * with the objects alive: call it sparingly.
 * @param context - the run's engine context
 */
export function memoryUsage(context: QuickJSContext): { usedBytes: number; objects: number } {
  const internals = internalsOf(context);
  const { ffi, rt } = internals;
  const usage = internals.getMemory!(rt.value).heapValueHandle(
    ffi.QTS_RuntimeComputeMemoryUsage(rt.value, internals.ctx!.value),
  );
  const read = (name: string): number => {
    const value = context.getProp(usage, name);
    try {
      return context.typeof(value) === "number" ? context.getNumber(value) : 0;
    } finally {
      value.dispose();
    }
  };
  try {
    return { usedBytes: read("memory_used_size"), objects: read("obj_count") };
  } finally {
    usage.dispose();
  }
}
