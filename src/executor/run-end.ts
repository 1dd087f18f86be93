/**
 * How both executors end a run once its worker is loaded: the stop (the run's timeout or the
 * caller's abort signal, whichever comes first), the outcome of a run that stopped or failed,
 * and freeing the RPC stubs. RPC stubs hold the sandbox worker alive until they are disposed or
 * garbage-collected; left to the GC, it is torn down at some later moment, on this thread, in
 * the middle of another run (measured: runs stalled by 50–100 ms every other call). Only what
 * offers `[Symbol.dispose]` is disposed: RPC results do; in workerd 1.20260815 the Worker
 * Loader's own stubs (the worker, its entrypoint) offer none, so those still go with the GC.
 */
import { capText } from "../../sandbox/truncate";
import { flatCopy } from "./flat-copy";
import type { HostBridge } from "./host-bridge";
import { emptyCounters } from "./run-start";
import { MAX_ERROR_MESSAGE, type OutcomeBase } from "./sandbox-response";
import type { ExecutionError, ExecutionOutcome } from "./types";

/** Why a run stopped before its worker answered. */
export type RunStopReason = "timeout" | "aborted";

/** One run's end: create it when the run starts, and `close()` it in a `finally`. */
export class RunEnd {
  private readonly stubs: unknown[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private onAbort: (() => void) | undefined;
  private closed = false;

  /**
   * @param bridge - the run's host bridge (its logs and calls go into every outcome)
   * @param started - `Date.now()` when the run began
   * @param signal - the caller's abort signal, if any
   */
  constructor(
    private readonly bridge: HostBridge,
    private readonly started: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /**
   * Starts the run's clock: the promise settles with `"timeout"` after `timeoutMs`, or with
   * `"aborted"` when the signal aborts (at once when it already has). Race it with the worker.
   *
   * @param timeoutMs - the run's timeout
   * @returns the stop, never rejected
   */
  stop(timeoutMs: number): Promise<RunStopReason> {
    return new Promise<RunStopReason>((resolve) => {
      this.timer = setTimeout(() => resolve("timeout"), timeoutMs);
      if (this.signal?.aborted) resolve("aborted");
      this.onAbort = () => resolve("aborted");
      this.signal?.addEventListener("abort", this.onAbort, { once: true });
    });
  }

  /**
   * Keeps RPC stubs (or RPC results, which may carry stubs) to dispose at `close()`; one that
   * arrives after the run closed is disposed at once.
   *
   * @param resources - stubs or results
   */
  hold(...resources: unknown[]): void {
    if (this.closed) for (const resource of resources) disposeQuietly(resource);
    else this.stubs.push(...resources);
  }

  /**
   * The counters of a run whose worker answered, for `responseToOutcome` to complete.
   *
   * @returns zero counters but the host calls made, and the duration so far
   */
  answered(): OutcomeBase {
    return { ...emptyCounters(), calls: this.bridge.calls, durationMs: Date.now() - this.started };
  }

  /**
   * The outcome of a run that ended without a usable answer, with what it logged and called.
   *
   * @param status - `timeout` or `error`
   * @param error - what ended it
   * @returns the outcome
   */
  ended(status: "timeout" | "error", error: ExecutionError): ExecutionOutcome {
    return {
      ...emptyCounters(),
      logs: this.bridge.logs,
      droppedLogs: this.bridge.droppedLogs(),
      calls: this.bridge.calls,
      status,
      error,
      durationMs: Date.now() - this.started,
    };
  }

  /**
   * The outcome of a stop: the timeout (naming the likely cause) or the cancellation.
   *
   * @param reason - what the stop settled with
   * @param timeoutMs - the run's timeout, for the message
   * @returns the outcome
   */
  stopped(reason: RunStopReason, timeoutMs: number): ExecutionOutcome {
    if (reason === "aborted")
      return this.ended("error", {
        name: "AbortError",
        message: "The run was cancelled.",
      });
    return this.ended("timeout", {
      name: "TimeoutError",
      message: `The code did not finish within ${timeoutMs} ms (is it waiting on a promise that never settles?).`,
    });
  }

  /**
   * The outcome when the sandbox worker itself failed (load error, crash, out of memory).
   *
   * @param error - what was thrown, or the worker's own message
   * @returns a `SandboxError` outcome
   */
  failed(error: unknown): ExecutionOutcome {
    const text = error instanceof Error ? error.message : String(error);
    // The text can be the program's own (a harness it made reject or throw): cut it as every
    // other error is, and copy the cut so the huge original can go.
    const message = capText(text, MAX_ERROR_MESSAGE);
    return this.ended("error", {
      name: "SandboxError",
      message: `The sandbox failed: ${message === text ? text : flatCopy(message)}`,
    });
  }

  /** Clears the clock and the abort listener, closes the bridge and disposes every stub held. */
  close(): void {
    clearTimeout(this.timer);
    if (this.onAbort) this.signal?.removeEventListener("abort", this.onAbort);
    this.bridge.close();
    this.closed = true;
    for (const stub of this.stubs) disposeQuietly(stub);
  }
}

/**
 * Calls `[Symbol.dispose]()` when there is one; a stub already gone is not an error.
 * @param resource - an RPC stub, a loaded worker or an RPC result
 */
export function disposeQuietly(resource: unknown): void {
  if (resource === null || typeof resource !== "object") return;
  const dispose = (resource as { [Symbol.dispose]?: unknown })[Symbol.dispose];
  if (typeof dispose !== "function") return;
  try {
    dispose.call(resource);
  } catch {
    // Disposed twice, or the worker already failed: nothing left to free.
  }
}
