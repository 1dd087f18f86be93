/**
 * The stable worker code a local host's executor runs programs on, for the supervisor: it warms
 * each runner it starts with it (cli/local-server/runners/host-code-request.mjs). The host answers
 * it on {@link STABLE_CODE_PATH} (src/app/create-worker.ts). No Worker-only imports: unit-tested in
 * Node.
 */
import { encodeCode } from "../runners/code-wire";
import { codeHash } from "../runners/code-hash";
import { resolveLimits } from "../limits";
import { DEFAULT_COMPATIBILITY_DATE } from "../loader-settings";
import { sharedWorkerCode } from "./shared-worker-code";
import type { ExecutorLimits } from "../types";
/**
 * The supervisor's route for the stable worker code this host's executor runs programs on
 * (src/app/create-worker.ts): `GET` with the supervisor's secret (cli/local-server/runners/host-code-request.mjs).
 */
export const STABLE_CODE_PATH = "/runners/stable";

/**
 * The answer's header naming the code's hash (code-hash.ts): the name runs ask for it by, so the
 * supervisor knows which runners already hold it. A runner keys what it is sent by the hash it
 * computes itself, whatever this says.
 */
export const STABLE_HASH_HEADER = "x-stable-hash";

/**
 * The answer to the supervisor's `GET /runners/stable`: the shared worker's code as text
 * (code-wire.ts), built exactly as the shared-worker executor builds it for a run (same
 * compatibility date and `cpuMs`, so the same hash), or 404 with the per-run isolate (no stable
 * code) or a configuration that does not check. The supervisor sends it to each runner it starts
 * (`POST /warm`, which keys it by its own hash): a cold pool's first shared-worker run on each
 * runner waited 1.4–2.2 s for the engine (bench/README.md, "Fair share from a cold pool").
 * @param config - the checked configuration's executor and limits, or undefined when it failed
 * @returns the answer (its hash under {@link STABLE_HASH_HEADER})
 */
export async function stableCodeAnswer(
  config: { executor: string; limits: Partial<ExecutorLimits> } | undefined,
): Promise<Response> {
  let code: WorkerLoaderWorkerCode | undefined;
  if (config?.executor === "shared-worker") {
    try {
      const cpuMs = resolveLimits(config.limits).cpuMs;
      code = sharedWorkerCode({ compatibilityDate: DEFAULT_COMPATIBILITY_DATE, cpuMs });
    } catch {
      // limits out of range: no executor runs with them either
    }
  }
  if (!code) return new Response("No stable worker code with this configuration.", { status: 404 });
  return new Response(encodeCode(code), {
    headers: { "content-type": "application/json", [STABLE_HASH_HEADER]: await codeHash(code) },
  });
}
