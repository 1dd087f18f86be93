/**
 * A Worker Loader sandbox loaded ahead of its run (`WorkerLoaderExecutor.prestart`). The loader
 * starts an isolate as soon as `load()` is called, so a caller that knows the code but still
 * waits on the network for the run's host functions (the `code` tool listing a cold remote
 * upstream's tools) overlaps the isolate's start-up with that wait. The sandbox belongs to one
 * run only: `take` hands it out once, to the executor that loaded it, for the same code and
 * isolate settings; anything else gets a fresh load, as without a prestart.
 */
import type { PreparedCode } from "../prepare-code";
import { disposeQuietly } from "../run-end";
import type { PrestartedRun } from "../types";

/** What the loaded isolate was built from; a run must match it to use the isolate. */
export interface PrestartKey {
  /** The executor that loaded it. */
  owner: object;
  code: string;
  cpuMs: number;
  /** Extension module names, in order. */
  extensions: readonly string[];
}

/** One prestarted sandbox. */
export class LoaderPrestart implements PrestartedRun {
  private worker: WorkerStub | undefined;

  /**
   * @param key - what the isolate was built from
   * @param prepared - the instrumented program (reused by the run, so it is not prepared twice)
   * @param worker - the loaded worker
   */
  constructor(
    private readonly key: PrestartKey,
    readonly prepared: PreparedCode,
    worker: WorkerStub,
  ) {
    this.worker = worker;
  }

  /**
   * Whether a run of `code` on `owner` may use this prestart's prepared program.
   * @param owner - the executor running it
   * @param code - the run's code
   */
  preparedFor(owner: object, code: string): boolean {
    return this.worker !== undefined && owner === this.key.owner && code === this.key.code;
  }

  /**
   * The loaded worker, once, when `key` matches what it was built from; otherwise it is freed
   * and the caller loads its own.
   * @param key - what the run needs
   */
  take(key: PrestartKey): WorkerStub | undefined {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return undefined;
    const same =
      key.owner === this.key.owner &&
      key.code === this.key.code &&
      key.cpuMs === this.key.cpuMs &&
      key.extensions.join() === this.key.extensions.join();
    if (same) return worker;
    disposeQuietly(worker);
    return undefined;
  }

  /** Frees the isolate when no run took it. */
  dispose(): void {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) disposeQuietly(worker);
  }
}
