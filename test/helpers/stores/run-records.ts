/**
 * A minimal run record for run-history tests (retention, shard trimming): one `search`/`execute`
 * run numbered `n`, with no calls or logs.
 */
import type { RunRecord } from "../../../src/codemode/runs/run-record";

/**
 * A finished, successful run numbered `n`.
 * @param n - the run's number: its program returns it and its result is it
 * @param startedAt - when it started (epoch ms)
 * @param id - the record id (stores prefix it with day and caller key)
 * @param tool - the tool that ran it
 */
export function sampleRun(
  n: number,
  startedAt: number,
  id: string,
  tool: RunRecord["tool"] = "search",
): RunRecord {
  return {
    id,
    startedAt,
    tool,
    server: "test",
    code: `async () => ${n}`,
    outcome: "ok",
    durationMs: 1,
    operations: 1,
    hostCalls: 0,
    calls: [],
    droppedCalls: 0,
    logs: [],
    droppedLogs: 0,
    result: String(n),
    resultBytes: 1,
    clipped: false,
  };
}
