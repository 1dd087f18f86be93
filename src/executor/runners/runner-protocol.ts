/**
 * What crosses between the host runtime and a sandbox runner runtime (local `npm start` only):
 * the runner is a second workerd process that owns the Worker Loader, so a program that blocks
 * its thread blocks that runner, never the host that serves MCP, the status page and the
 * Durable Objects. Calls are Workers RPC over a loopback socket (an external service binding
 * with capnp); the host bridge crosses as an RPC stub, so every host call still runs, and is
 * checked, on the host.
 */

/**
 * A runner's answer: the loaded worker's own answer; what it threw (its message: the host
 * rethrows it, so the executors read it as they read an in-process failure); a request for
 * the code of a stable worker (`get`) that this runner has not been sent since it started;
 * word that the runner is retiring and began nothing (runner-life.ts: the host sends the run
 * elsewhere); or word that the runner gave the run up, its timeout and a margin having passed
 * (the host's own clock ended it before: sandbox-runner.ts). An RPC call that rejects therefore
 * always means the runner itself failed, or refused a caller without the cluster secret.
 */
export type RunnerAnswer =
  | { answer: unknown }
  | { thrown: string }
  | { missingCode: true }
  | { retiring: true }
  | { timedOut: true };

/**
 * The RPC face of a runner (`SandboxRunner` in sandbox-runner.ts). Every call's first argument
 * is this launch's cluster secret (cluster-secret.ts): a call without it is refused (rejects)
 * before anything else, since the runner's socket is open to every process on the machine.
 */
export interface RunnerApi {
  /**
   * Loads `code` as a fresh Dynamic Worker and calls `run(request, host)` on its entrypoint.
   * @param secret - the cluster secret
   * @param code - the loader code (harness, runtime, the program)
   * @param request - the run's request, passed on unchanged
   * @param host - the host bridge (an RPC stub back to the host)
   */
  load(
    secret: string,
    code: WorkerLoaderWorkerCode,
    request: unknown,
    host: unknown,
  ): Promise<RunnerAnswer>;
  /**
   * Loads a fresh Dynamic Worker from the base named `baseHash` plus the program module `name`
   * (run-base.ts) and calls `run(request, host)` on its entrypoint: as {@link load}, with the
   * base sent once per runner (`null` until the runner asks for it with `missingCode`). The
   * runner keeps a base only under its own SHA-256 (code-hash.ts).
   * @param secret - the cluster secret
   * @param baseHash - the base's code hash
   * @param base - the base (harness, runtime, extensions, settings), or null
   * @param name - the program module's name
   * @param text - the program module's text (this run's own)
   * @param request - the run's request, passed on unchanged
   * @param host - the host bridge (an RPC stub back to the host)
   */
  loadWithBase(
    secret: string,
    baseHash: string,
    base: WorkerLoaderWorkerCode | null,
    name: string,
    text: string,
    request: unknown,
    host: unknown,
  ): Promise<RunnerAnswer>;
  /**
   * Calls `run(request, host)` on the stable Dynamic Worker named `hash`, loading it from `code`
   * (sent once per runner; `null` until the runner asks for it). The runner keeps code only
   * under its own SHA-256 (code-hash.ts): code that does not match `hash` is not kept.
   * @param secret - the cluster secret
   * @param hash - the stable worker's code hash (its name between host and runner)
   * @param code - its code, or null when the runner should already hold it
   * @param request - the run's request, passed on unchanged
   * @param host - the host bridge (an RPC stub back to the host)
   */
  get(
    secret: string,
    hash: string,
    code: WorkerLoaderWorkerCode | null,
    request: unknown,
    host: unknown,
  ): Promise<RunnerAnswer>;
}
