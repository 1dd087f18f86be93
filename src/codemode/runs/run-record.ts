/**
 * The run record: what one `search`, `execute` or `code` run did, handed to the `onRun` option of
 * `openApiMcpServer` and `codeMcpServer` after the run, for a run history (the product stores it
 * in Durable Objects, src/app/runs/).
 *
 * Security defaults: built from what the client already saw (the redacted tool result) and from
 * the program, logs, errors and call summaries, each passed through the same secret redaction as
 * results; never a request's headers or body. Every field is bounded ({@link RUN_RECORD_LIMITS}),
 * and so is the whole record: at most `recordBytes` of JSON (./record-fit.ts says what is cut).
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { ExecutionError, ExecutionStatus, LogEntry } from "../../executor/types";

/** The tool a run belongs to. */
export type RunTool = "search" | "execute" | "code";

/** One `codemode.request()` of an `execute` run: never headers or bodies. */
export interface RunRequestCall {
  kind: "request";
  method: string;
  /** The path as the program sent it (no query). */
  path: string;
  /** The upstream's status, when an answer came back. */
  status?: number;
  /** A 2xx answer. */
  ok: boolean;
  durationMs: number;
  /** Why no answer came back (refused, failed), redacted. */
  error?: string;
}

/** One upstream tool call of a `code` run. */
export interface RunToolCall {
  kind: "tool";
  name: string;
  ok: boolean;
  durationMs: number;
  error?: string;
}

/** A call the run made to the outside. */
export type RunCall = RunRequestCall | RunToolCall;

/** A saved skill the run called (docs/skills.md): which version ran, how often. */
export interface RunSkillUse {
  name: string;
  version: number;
  calls: number;
}

/** What one run did. */
export interface RunRecord {
  /** Random id (the product prefixes it with its storage shard). */
  id: string;
  /** Start, epoch milliseconds. */
  startedAt: number;
  tool: RunTool;
  /** The code-mode server's name. */
  server: string;
  /** The program, redacted, cut at `codeChars`. */
  code: string;
  outcome: ExecutionStatus;
  /** Why the run did not complete (redacted). */
  error?: ExecutionError;
  durationMs: number;
  /** Operations counted against `maxOperations`. */
  operations: number;
  /** Host function calls (requests, tool calls, `declaration`, `search`…). */
  hostCalls: number;
  /**
   * Requests or tool calls, in the order they started: all of them, or the first and the last
   * ones (at most `calls` in all; see `droppedCallsAt`).
   */
  calls: RunCall[];
  /** Calls not kept. */
  droppedCalls: number;
  /** When calls were dropped: the index in `calls` where they were (first ones before it). */
  droppedCallsAt?: number;
  /** Console output (redacted, at most `logChars` in all). */
  logs: LogEntry[];
  /** Console lines not kept (by the run's log limit or the record's). */
  droppedLogs: number;
  /** The tool result's text as the client got it (redacted), cut at `resultChars`. */
  result: string;
  /** Size of the run's result JSON in bytes (0 without a result). */
  resultBytes: number;
  /** Whether a field of this record was cut to fit its bound. */
  clipped: boolean;
  /** The skills the run called, with the version that ran (at most `skills` of them). */
  skills?: RunSkillUse[];
}

/** What the recorder learns about the request besides the record. */
export interface RunContext {
  /** The verified identity of the caller (OAuth, or a forwarded token), if any. */
  authInfo?: AuthInfo | undefined;
}

/**
 * Receives each run's record once the tool result is built; not awaited, so the run does not
 * wait for it. Write to storage inside `ctx.waitUntil(…)` (or `waitUntil` from
 * `cloudflare:workers`) so the request outlives the write. A thrown error or rejected promise is
 * logged and otherwise ignored: recording never fails a run.
 */
export type RunRecorder = (record: RunRecord, context: RunContext) => void | Promise<void>;

/** The bounds of one record. */
export const RUN_RECORD_LIMITS = Object.freeze({
  codeChars: 32_000,
  resultChars: 16_000,
  logChars: 8_000,
  errorChars: 2_000,
  calls: 200,
  /** Skills named per record (names are at most 64 characters). */
  skills: 100,
  /** The whole record as JSON, in bytes: the largest record any run can write. */
  recordBytes: 65_536,
});
