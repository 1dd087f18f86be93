/**
 * The runner side of local sandbox runners: a `WorkerEntrypoint` in its own workerd process
 * (src/runner.ts is its Worker) holding the Worker Loader binding. It loads what the host sends
 * and hands the host bridge stub to the loaded worker untouched, so the sandbox's host calls go
 * straight back to the host; the runner itself holds no secret and no host function.
 *
 * Security defaults: every call must carry this launch's cluster secret (cluster-secret.ts),
 * checked before anything else: the RPC port is on 127.0.0.1, where any process on the machine
 * reaches it. The runner adds nothing to the loaded worker's code (the host built it with
 * `globalOutbound: null` and an empty env: src/executor/loader/sandbox-worker-code.ts); it keeps
 * the code of stable workers, and the bases of runs (run-base.ts: a run then sends only its
 * program module), only under the hash it computed of that code itself (code-hash.ts, at most
 * held-code.ts). A run the host has given up on is given up here too: at the latest
 * {@link RUN_END_MARGIN_MS} after its timeout, and within {@link RUN_WANTED_POLL_MS} of the host
 * saying it no longer waits for it (a cancelled run), or no longer answering (its call cancelled:
 * a gone client; the asking: run-wanted.ts): the runner stops waiting for it,
 * frees its stubs and counts it ended, so a program that keeps awaiting forever cannot hold the
 * runner's retirement, which waits for the runs under way. A run on a stable worker (the shared
 * worker's engine, which keeps a dropped call's run until the run's own deadline) is ended there
 * too, with a key only this call holds (run-end-key.ts), before the run counts ended here. When
 * the host cancels its call (at its own timeout, or when its client went away), the call goes on
 * here (`ctx.waitUntil`) and finds the host gone at its next asking; should its context be
 * dropped all the same, the run stops counting at its deadline by itself (runner-life.ts).
 *
 * Does not do: stop a run that blocks its thread. The supervisor replaces a runner that stops
 * answering (docs/local-runtime.md), and every run in flight on it then fails on the host at once.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { clusterSecretOf, isClusterSecret } from "./cluster-secret";
import { codeHash } from "./code-hash";
import { keepBase, keepStable, runBase, stableCode } from "./held-code";
import { composeRunCode } from "./run-base";
import { runnerLife } from "./runner-life";
import type { RunnerAnswer, RunnerApi } from "./runner-protocol";
import { endRun, newEndKey, type EndableEntrypoint } from "./run-end-key";
import { PacedHost, waitingCallsFor, type HostCalls } from "./paced-host";
import { announce, CANCELLED, RUN_WANTED_POLL_MS, stillWanted } from "./run-wanted";

/** The bindings a runner Worker has. */
export interface RunnerEnv {
  /** The Worker Loader binding the runs are loaded through. */
  LOADER: WorkerLoader;
  /** This launch's cluster secret (cluster-secret.ts); a runner without one serves no call. */
  LOCAL_CLUSTER_SECRET?: string;
}

/**
 * How long after a run's own timeout (`timeoutMs` in the host's request) the runner gives the
 * run up. The host's clock starts before it sends the run and this one after it arrived, so the
 * host has always answered the client by then (its `TimeoutError`); the margin covers a host
 * whose timer fires late on a busy machine.
 */
export const RUN_END_MARGIN_MS = 2_000;

/**
 * The timeout of a run whose request names none (a host older than `timeoutMs` in the request):
 * the executors' default (executor/limits.ts, not imported: the runner Worker stays tiny).
 */
export const DEFAULT_RUN_TIMEOUT_MS = 30_000;

/**
 * When the runner gives a run up: the run's `timeoutMs` from the request the host built, plus
 * {@link RUN_END_MARGIN_MS}; {@link DEFAULT_RUN_TIMEOUT_MS} when the request names none.
 * @param request - the run's request (the host's, passed on unchanged)
 */
export function runDeadlineFor(request: unknown): number {
  const timeout =
    typeof request === "object" && request !== null
      ? (request as { timeoutMs?: unknown }).timeoutMs
      : undefined;
  const ms =
    typeof timeout === "number" && Number.isSafeInteger(timeout) && timeout >= 1
      ? timeout
      : DEFAULT_RUN_TIMEOUT_MS;
  return ms + RUN_END_MARGIN_MS;
}

interface RunEntrypoint extends EndableEntrypoint {
  run(request: unknown, host: unknown, endKey?: string): Promise<unknown>;
}

/** What a call without this launch's cluster secret gets (it learns nothing else). */
export const REFUSED = "This sandbox runner serves only the local server that started it.";

/** Runs sandbox workers for the host runtime. See the module comment. */
export class SandboxRunner extends WorkerEntrypoint<RunnerEnv> implements RunnerApi {
  /**
   * HTTP sent to the runner's RPC socket (no part of the cluster sends any: another process on
   * the machine): refused, quietly. Without it workerd threw "Handler does not export a fetch()"
   * and printed an uncaught exception into the server's output for every such request.
   */
  override fetch(_request: Request): Response {
    return new Response(REFUSED, { status: 403, headers: { "content-type": "text/plain" } });
  }

  /** Loads `code` and runs it (see {@link RunnerApi.load}). */
  async load(
    secret: string,
    code: WorkerLoaderWorkerCode,
    request: unknown,
    host: unknown,
  ): Promise<RunnerAnswer> {
    this.#admit(secret);
    return this.#outliving(
      counted(request, async () => {
        if (!(await announce(host))) return CANCELLED;
        return runOn(() => this.env.LOADER.load(code), request, paced(host, request), host);
      }),
    );
  }

  /** Loads a run's base plus its program module and runs it (see {@link RunnerApi.loadWithBase}). */
  async loadWithBase(
    secret: string,
    baseHash: string,
    base: WorkerLoaderWorkerCode | null,
    name: string,
    text: string,
    request: unknown,
    host: unknown,
  ): Promise<RunnerAnswer> {
    this.#admit(secret);
    if (base) {
      // Kept only under its own hash, as stable code is (run-base.ts).
      if ((await codeHash(base)) !== baseHash)
        return { thrown: "The run's base code does not match its name (its SHA-256)." };
      keepBase(baseHash, base);
    }
    const known = runBase(baseHash);
    if (!known) return { missingCode: true };
    const code = composeRunCode(known, name, text);
    if (typeof code === "string") return { thrown: code };
    return this.#outliving(
      counted(request, async () => {
        if (!(await announce(host))) return CANCELLED;
        return runOn(() => this.env.LOADER.load(code), request, paced(host, request), host);
      }),
    );
  }

  /** Runs on the stable worker named `hash` (see {@link RunnerApi.get}). */
  async get(
    secret: string,
    hash: string,
    code: WorkerLoaderWorkerCode | null,
    request: unknown,
    host: unknown,
  ): Promise<RunnerAnswer> {
    this.#admit(secret);
    if (code) {
      // Kept only under its own hash: a name never stands for other code than it was made from.
      if ((await codeHash(code)) !== hash)
        return { thrown: "The stable worker's code does not match its name (its SHA-256)." };
      keepStable(hash, code);
    }
    const known = stableCode(hash);
    if (!known) return { missingCode: true };
    return this.#outliving(
      counted(request, async () => {
        if (!(await announce(host))) return CANCELLED;
        return runOn(
          () => this.env.LOADER.get(hash, () => known),
          request,
          paced(host, request),
          host,
          true,
          (pending) => this.ctx.waitUntil(pending),
        );
      }),
    );
  }

  /**
   * Keeps a run's call going after the host cancels it (issue #40): a client that goes away
   * makes workerd cancel the host's request, and with it this call, and a call's context that
   * was cancelled runs none of its code again: the run stayed counted under way until its
   * deadline (31.5 s after its client left, e2e gone-client), its engine context on the shared
   * worker kept to the run's own deadline. Kept (the entrypoint's `ctx.waitUntil`), the call
   * goes on asking the host ({@link stillWanted}), which can no longer answer, and gives the run
   * up within {@link RUN_WANTED_POLL_MS}: ends it, frees it and counts it ended.
   */
  #outliving(run: Promise<RunnerAnswer>): Promise<RunnerAnswer> {
    this.ctx.waitUntil(run.catch(() => {}));
    return run;
  }

  /** Throws {@link REFUSED} unless `secret` is this launch's cluster secret (and one is set). */
  #admit(secret: unknown): void {
    const own = clusterSecretOf(this.env);
    if (own === undefined || !isClusterSecret(secret, own)) throw new Error(REFUSED);
  }
}

/**
 * Runs `run` as one of this runner's runs (runner-life.ts), or answers `{ retiring: true }`
 * without starting it when the runner is retiring: the host then sends it to another runner.
 */
async function counted(request: unknown, run: () => Promise<RunnerAnswer>): Promise<RunnerAnswer> {
  // Counted under way until it ends or its deadline passes: a call the host cancels never
  // reaches the `finally` below (runner-life.ts says why), and must not stay counted.
  const ticket = runnerLife.begin(runDeadlineFor(request));
  if (!ticket) return RETIRING;
  try {
    return await run();
  } finally {
    ticket.end();
  }
}

/** The answer of a retiring runner: it began nothing. */
const RETIRING: RunnerAnswer = { retiring: true };

/**
 * The run's host bridge, paced, with its waiting calls bounded by the run's own limit and its
 * calls at the host by its share of the runner's flight (the runner's runs under way).
 */
function paced(host: unknown, request: unknown): PacedHost {
  return new PacedHost(host as HostCalls, waitingCallsFor(request), () => runnerLife.underWay());
}

/** Settles a wait that the runner gave up ({@link runDeadlineFor}, {@link stillWanted}). */
const GAVE_UP = Symbol("gave up");

/**
 * Calls `run` on the worker's entrypoint and frees both stubs after, where they can be freed
 * (in workerd 1.20260815 the Worker Loader's stubs offer no `[Symbol.dispose]`: they go with the
 * garbage collector; see run-end.ts). A failure of the load or the run is answered as data, so
 * the host tells it from a lost runner. A run still going at {@link runDeadlineFor}, or once the
 * host no longer waits for it ({@link stillWanted}, asked every {@link RUN_WANTED_POLL_MS}), is
 * given up: answered `{ timedOut: true }` (the host answered its client before) and, with this
 * call returning, counted ended and its call to the loaded worker cancelled with this request.
 * `owner` is the host's bridge stub as it came (`host` is the paced one the sandbox gets).
 *
 * A stable worker (`endable`: the shared worker's engine, which runs many programs and keeps a
 * dropped call's run until the run's own deadline) gets a key with the run (run-end-key.ts), and
 * a run given up is ended there with it before this call answers: its engine runtime freed and
 * its place among the engine's runs under way given back (issue #40), not at its deadline. The
 * `end` call is handed to `keep` (the entrypoint's `ctx.waitUntil`): this call stops waiting for
 * the engine's word after `END_WAIT_MS` and answers, and the `end` still in flight must not be
 * cancelled with this request then, or the run goes on in the engine until its deadline.
 */
async function runOn(
  load: () => WorkerStub,
  request: unknown,
  host: unknown,
  owner: unknown,
  endable = false,
  keep?: (pending: Promise<unknown>) => void,
): Promise<RunnerAnswer> {
  let worker: (WorkerStub & Partial<Disposable>) | undefined;
  let entry: (RunEntrypoint & Partial<Disposable>) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let poll: ReturnType<typeof setTimeout> | undefined;
  let over = false;
  try {
    worker = load();
    entry = worker.getEntrypoint() as unknown as RunEntrypoint & Partial<Disposable>;
    const endKey = endable ? newEndKey() : undefined;
    const running =
      endKey === undefined ? entry.run(request, host) : entry.run(request, host, endKey);
    // The request is in the call's message now: its large bytes (a packed spec, 4 MB for
    // Cloudflare's, in every search) are freed here at once instead of at this isolate's next
    // collection, which its little garbage makes rare (tens of dead copies per runner).
    releaseBytes(request);
    const gaveUp = new Promise<typeof GAVE_UP>((resolve) => {
      timer = setTimeout(() => resolve(GAVE_UP), runDeadlineFor(request));
      // Asked on this call's own timers: the answer settles this promise in this context.
      const ask = () => {
        poll = setTimeout(() => {
          void stillWanted(owner).then((yes) => {
            if (!yes) resolve(GAVE_UP);
            else if (!over) ask();
          });
        }, RUN_WANTED_POLL_MS);
      };
      ask();
    });
    const answer = await Promise.race([running, gaveUp]);
    if (answer !== GAVE_UP) return { answer };
    // Its late answer or failure goes nowhere (and is no unhandled rejection).
    running.then(disposeQuietly, () => {});
    // Counted under way until the engine has freed it (or did not answer in time).
    if (endKey !== undefined) await endRun(entry, endKey, undefined, keep);
    return { timedOut: true };
  } catch (error) {
    return { thrown: error instanceof Error ? error.message : String(error) };
  } finally {
    over = true;
    clearTimeout(timer);
    clearTimeout(poll);
    entry?.[Symbol.dispose]?.();
    worker?.[Symbol.dispose]?.();
  }
}

/**
 * Frees the bytes of a run's extension data ({@link runOn}, once the request is sent on) by
 * detaching their buffers: V8 lets a detached buffer's memory go at once. In a runner the request
 * is always the copy RPC deserialized for this call, which nothing else holds; a caller in the
 * same isolate (a test) hands its bytes over the same way.
 * @param request - the run's request (the host's, already sent on to the loaded worker)
 */
export function releaseBytes(request: unknown): void {
  const extensions =
    typeof request === "object" && request !== null
      ? (request as { extensions?: unknown }).extensions
      : undefined;
  if (!Array.isArray(extensions)) return;
  for (const extension of extensions) {
    const data = (extension as { data?: unknown } | null)?.data;
    if (!(data instanceof Uint8Array)) continue;
    // ES2024's `transfer` and `detached` (workerd's V8 has them; the project's lib is ES2023).
    const buffer = data.buffer as ArrayBuffer & {
      detached?: boolean;
      transfer?(n: number): unknown;
    };
    if (buffer.detached) continue;
    try {
      buffer.transfer?.(0);
    } catch {
      // not detachable (a shared or wasm buffer): left to the collector
    }
  }
}

/** Disposes an RPC result that may carry stubs, if it can be. */
function disposeQuietly(value: unknown): void {
  try {
    (value as Partial<Disposable> | null)?.[Symbol.dispose]?.();
  } catch {
    // nothing to free
  }
}
