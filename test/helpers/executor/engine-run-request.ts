/** The request a plain-Node engine test hands `EngineRun`: the shared executor's defaults. */
import { prepareCode } from "../../../src/executor/prepare-code";
import type { EngineRunRequest } from "../../../sandbox/engine/protocol";

/**
 * A request for `code` with the shared executor's default limits for `code` (one `codemode.echo`
 * host function, no extensions).
 * @param code - the program, as a model would send it
 * @param changes - limits a test sets otherwise (a shorter timeout, a console budget it names)
 */
export function engineRunRequest(
  code: string,
  changes: Partial<EngineRunRequest> = {},
): EngineRunRequest {
  const prepared = prepareCode(code);
  if (!prepared.ok) throw new Error(prepared.message);
  return {
    userModule: prepared.module,
    namespaces: { codemode: ["echo"] },
    maxOperations: 20_000_000,
    maxResultBytes: 1_048_576,
    maxLogBytes: 65_536,
    maxCallBytes: 4_194_304,
    maxHostCalls: 1_000,
    extensions: [],
    maxInterrupts: 8_000,
    cpuBound: false,
    cpuMs: 30_000,
    memoryBytes: 64 * 1_048_576,
    stackBytes: 196_608,
    timeoutMs: 10_000,
    ...changes,
  };
}
