/**
 * Collects one run's calls and, when the run is over, hands its {@link RunRecord} to the
 * configured recorder off the run's path. Only built when a server has `onRun`: without it the
 * tools run exactly as before.
 *
 * Off the run's path: the record is built after the tool result (redacting a bounded program
 * and logs: cheap, synchronous work), and the recorder is not awaited; a host that writes to
 * storage keeps the request alive with `waitUntil` itself (the product does, in
 * src/app/endpoints.ts). The library stays free of Worker-only imports: it also runs in Node
 * (the launcher's tools/list measure).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ExecutionOutcome, HostFunction } from "../../executor/types";
import type { Redactor } from "../redaction/redaction";
import { cutMiddle, fitRecord } from "./record-fit";
import {
  RUN_RECORD_LIMITS as LIMITS,
  type RunCall,
  type RunContext,
  type RunRecord,
  type RunRecorder,
  type RunSkillUse,
  type RunTool,
} from "./run-record";

/** One run's trace. */
export class RunTrace {
  private readonly startedAt = Date.now();
  /** The first calls, up to half the limit. */
  private readonly calls: RunCall[] = [];
  /** The latest calls after those, as a ring of the other half. */
  private readonly latest: RunCall[] = [];
  private dropped = 0;
  private skillUses: RunSkillUse[] = [];

  /**
   * @param tool - the tool the run belongs to
   * @param server - the code-mode server's name
   * @param code - the program as submitted
   * @param redactor - the server's configured secrets
   */
  constructor(
    private readonly runTool: RunTool,
    private readonly server: string,
    private readonly code: string,
    private readonly redactor: Redactor,
  ) {}

  /**
   * Wraps the host function behind `codemode.request()`: notes method, path, status and time of
   * each request. A synchronous answer stays synchronous.
   * @param fn - the request host function
   */
  requests(fn: HostFunction): HostFunction {
    return (args, call) => {
      const input = (args[0] ?? {}) as { method?: unknown; path?: unknown };
      const started = Date.now();
      const note = (status: number | undefined, error?: unknown) =>
        this.add({
          kind: "request",
          method: String(input.method ?? "GET")
            .toUpperCase()
            .slice(0, 16),
          path: String(input.path ?? "")
            .split("?")[0]!
            .slice(0, 500),
          ...(status === undefined ? {} : { status }),
          ok: status !== undefined && status >= 200 && status < 300,
          durationMs: Date.now() - started,
          ...(error === undefined ? {} : { error: message(error) }),
        });
      const answered = (value: unknown) => {
        const status = (value as { status?: unknown } | null)?.status;
        note(typeof status === "number" ? status : undefined);
        return value;
      };
      const failed = (error: unknown): never => {
        note(undefined, error);
        throw error;
      };
      try {
        const answer = fn(args, call);
        return answer instanceof Promise ? answer.then(answered, failed) : answered(answer);
      } catch (error) {
        return failed(error);
      }
    };
  }

  /**
   * Wraps an upstream tool's host function: notes its name, success and time.
   * @param name - the upstream tool's name
   * @param fn - the host function
   */
  toolCalls(name: string, fn: HostFunction): HostFunction {
    return async (args, call) => {
      const started = Date.now();
      try {
        const value = await fn(args, call);
        this.add({
          kind: "tool",
          name,
          ok: true,
          durationMs: Date.now() - started,
        });
        return value;
      } catch (error) {
        const durationMs = Date.now() - started;
        this.add({
          kind: "tool",
          name,
          ok: false,
          durationMs,
          error: message(error),
        });
        throw error;
      }
    };
  }

  /**
   * Hands the record to the recorder without waiting for it; its failure is logged, never thrown.
   * @param outcome - the executor's outcome
   * @param result - the tool result as returned to the client (already redacted)
   * @param recorder - the `onRun` option
   * @param context - the caller's identity
   */
  /**
   * Names the skills the run called (from `SkillRun.used()`), before {@link finish}.
   * @param uses - each skill with the version that ran and its call count
   */
  usedSkills(uses: readonly RunSkillUse[]): void {
    this.skillUses = uses.slice(0, LIMITS.skills).map(({ name, version, calls }) => ({
      name,
      version,
      calls,
    }));
  }

  finish(
    outcome: ExecutionOutcome,
    result: CallToolResult,
    recorder: RunRecorder,
    context: RunContext,
  ): void {
    const failed = (error: unknown) => console.warn(`code-mode: onRun failed: ${message(error)}`);
    try {
      const pending = recorder(this.record(outcome, result), context);
      if (pending instanceof Promise) pending.catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  private add(call: RunCall): void {
    const half = LIMITS.calls / 2;
    if (this.calls.length < half) this.calls.push(call);
    else {
      // The first and the last calls say most about a run: keep both, count the middle.
      if (this.latest.length === half) {
        this.latest.shift();
        this.dropped++;
      }
      this.latest.push(call);
    }
  }

  private record(outcome: ExecutionOutcome, result: CallToolResult): RunRecord {
    return fitRecord(this.boundedRecord(outcome, result));
  }

  private boundedRecord(outcome: ExecutionOutcome, result: CallToolResult): RunRecord {
    const r = this.redactor;
    let clipped = false;
    const cut = (text: string, max: number) => {
      if (text.length <= max) return text;
      clipped = true;
      return `${text.slice(0, max)}…`;
    };
    // The program's start and end both say what it did: cut in the middle, marked.
    const cutCode = (code: string) => {
      if (code.length > LIMITS.codeChars) clipped = true;
      return cutMiddle(code, LIMITS.codeChars);
    };
    const text = (result.content ?? [])
      .map((block) => (block.type === "text" ? block.text : `[${block.type}]`))
      .join("\n");
    let budget = LIMITS.logChars;
    const logs = [];
    for (const entry of outcome.logs) {
      const kept = r.text(entry.message);
      if (kept.length > budget) break;
      budget -= kept.length;
      logs.push({ ...entry, message: kept });
    }
    if (logs.length < outcome.logs.length) clipped = true;
    const error = outcome.error && {
      ...outcome.error,
      name: cut(r.text(outcome.error.name), 200),
      message: cut(r.text(outcome.error.message), LIMITS.errorChars),
    };
    return {
      id: crypto.randomUUID().replaceAll("-", "").slice(0, 20),
      startedAt: this.startedAt,
      tool: this.runTool,
      server: this.server,
      code: cutCode(r.text(this.code)),
      outcome: outcome.status,
      ...(error ? { error } : {}),
      durationMs: outcome.durationMs,
      operations: outcome.operations,
      hostCalls: outcome.calls,
      calls: [...this.calls, ...this.latest].map((c) =>
        c.error === undefined ? c : { ...c, error: r.text(c.error) },
      ),
      droppedCalls: this.dropped,
      ...(this.dropped > 0 ? { droppedCallsAt: this.calls.length } : {}),
      logs,
      droppedLogs: outcome.droppedLogs + outcome.logs.length - logs.length,
      result: cut(text, LIMITS.resultChars),
      resultBytes: outcome.resultBytes,
      clipped: clipped || this.dropped > 0,
      ...(this.skillUses.length > 0 ? { skills: this.skillUses } : {}),
    };
  }
}

function message(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, LIMITS.errorChars);
}
