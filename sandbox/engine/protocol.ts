/**
 * The RPC contract between the host's SharedWorkerExecutor (src/executor) and the shared
 * worker's engine runner (runner.ts). Types only: both sides import it.
 */
import type { SandboxExtensionName, SandboxRequestBase } from "../protocol";

/**
 * One extension of a run. Large data travels by `key` (its content digest): the shared worker
 * keeps it (data-cache.ts), so `data` is sent only when the worker answered `missing`.
 */
export interface EngineExtension {
  name: SandboxExtensionName;
  namespace: string;
  /** Content key of `data`; absent for small data, which is always sent. */
  key?: string;
  data?: string | Uint8Array;
}

/**
 * One run, sent as data to the stable shared worker: the host functions and the limits the
 * isolate harness takes too (`SandboxRequestBase`, one definition for both), and the engine's own.
 */
export interface EngineRunRequest extends SandboxRequestBase {
  /** Text of the instrumented `user.js` module (from prepareCode). */
  userModule: string;
  extensions: EngineExtension[];
  /**
   * Interrupt-handler calls (each after roughly ten thousand engine steps, and during regular
   * expression backtracking) before the engine stops the run: the deadline that holds when no
   * clock advances, i.e. inside synchronous code.
   */
  maxInterrupts: number;
  /** Whether `maxInterrupts` came from the run's `cpuMs` (not from `maxOperations`). */
  cpuBound: boolean;
  /** The run's CPU budget in ms, named in the message when `cpuBound`. */
  cpuMs: number;
  /** Bytes the run's engine runtime may allocate. */
  memoryBytes: number;
  /** Largest engine stack of the run, in bytes. */
  stackBytes: number;
  /** Wall-clock deadline after which the runner drops the run and frees its engine. */
  timeoutMs: number;
}

/** How the runner reports a run the engine stopped, or an engine failure, besides a response. */
export interface EngineStop {
  /**
   * `interrupted`: the interrupt budget ran out; `memory`: out of memory; `failed`: other;
   * `missing`: the worker does not hold the data of a keyed extension (send it with the run);
   * `ended`: its caller ended it (runner.ts `end`: no one waits for its answer any more).
   */
  stop: "interrupted" | "memory" | "failed" | "timeout" | "missing" | "ended";
  message: string;
  /** The guest's response drained after the stop (logs, usage), as JSON text, when readable. */
  partial?: string;
}
