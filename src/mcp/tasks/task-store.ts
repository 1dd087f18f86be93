/**
 * `McpTaskStore`: one Durable Object per task (named by its id), holding the task in SQLite and
 * running it. The tools/call that creates a task returns at once; the run continues here, one
 * round at a time (see task-rounds.ts), so it outlives the request, the client's connection and
 * the isolate that served the call. The creating request's identity is kept only while a round
 * can still run (it is dropped with a terminal status). `tasks/get`, `tasks/update` and `tasks/cancel` reach the
 * same object from any isolate.
 *
 * Lifetime: a task is deleted (storage and alarm) `ttlMs` after creation. While a round runs,
 * an alarm every {@link HEARTBEAT_MS} keeps the object from being evicted as idle; a round cut
 * short by a restart or deploy is reported as `failed` with a message saying so (its sandbox
 * run cannot be resumed half-way), never left `working` forever.
 *
 * The same class also serves as a handler's ledger of places (task-places.ts: the bound on
 * tasks running at once), in one object named `places:<handler>`: no second binding to add.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { DurableObject } from "cloudflare:workers";
import { runRound, taskRoundServer, type RoundOutcome, type TaskRoundServer } from "./task-rounds";
import { failure, taskResult, view, type TaskInit, type TaskRecord } from "./task-record";
import {
  givePlaceIn,
  renewPlaceIn,
  takePlaceIn,
  taskPlaces,
  type PlaceRefusal,
} from "./task-places";
import { TERMINAL_STATUSES, type TaskView } from "./task-wire";
import { PROTOCOL_CODES } from "../../errors";

/** How often the alarm fires while a round runs (keeps the object resident). */
export const HEARTBEAT_MS = 30_000;

/**
 * The task Durable Object. Bind it (`new_sqlite_classes`) and pass the namespace as
 * `createMcpHandler(factory, { tasks: { namespace: () => env.MCP_TASKS } })`.
 *
 * Override {@link McpTaskStore.resolveServer} when the handler is built lazily (per
 * configuration) rather than at module scope: the object must find it in its own isolate.
 */
export class McpTaskStore extends DurableObject {
  private running: AbortController | undefined;

  /**
   * The handler that runs this task's rounds, by its registered name. The default looks it up
   * among the handlers created in this isolate with the `tasks` option.
   * @param name - the handler's task name (its route unless configured)
   */
  protected resolveServer(
    name: string,
  ): TaskRoundServer | undefined | Promise<TaskRoundServer | undefined> {
    return taskRoundServer(name);
  }

  /**
   * Runs one round of `record` as the caller that created the task. A round runs in this
   * object, outside the creating request, so whatever that request's handling knew of its caller
   * (the product's placement on sandbox runners: src/app/placement-caller.ts) is not known here
   * unless an override brings it back. The default runs it as is.
   * @param record - the task (its `countedAs` and `owner`)
   * @param round - the round's work
   */
  protected asCaller<T>(record: TaskRecord, round: () => Promise<T>): Promise<T> {
    void record;
    return round();
  }

  /** Creates the task (durably, before answering) and starts its first round. */
  async create(init: TaskInit): Promise<TaskView> {
    const now = Date.now();
    const record: TaskRecord = {
      ...init,
      status: "working",
      createdAt: now,
      updatedAt: now,
    };
    this.save(record);
    await this.ctx.storage.setAlarm(now + Math.min(HEARTBEAT_MS, init.ttlMs));
    void this.runRounds();
    return view(record);
  }

  /** The task as `tasks/get` shows it, or `null` when unknown, expired or someone else's. */
  get(owner: string): TaskView | null {
    const record = this.load(owner);
    return record === undefined ? null : view(record);
  }

  /**
   * The task and the number of its input rounds so far: a 2025-era `tasks/result` stream asks
   * each round's questions once and tags the answers with the round they belong to.
   */
  poll(owner: string): { task: TaskView; inputRound: number } | null {
    const record = this.load(owner);
    return record === undefined ? null : { task: view(record), inputRound: record.inputRound ?? 0 };
  }

  /**
   * Delivers answers to pending input requests (unknown keys are ignored). When every pending
   * request is answered, the next round starts with all of them.
   * @param inputRound - when given, answers to another input round than the current one are
   *   dropped (a late answer never approves a later, different question with the same key)
   * @returns false when the task is unknown; why not when the answers would resume the run but
   *   the handler's bound on running tasks is reached (nothing is applied: answer again later)
   */
  async update(
    owner: string,
    inputResponses: Record<string, unknown>,
    inputRound?: number,
  ): Promise<boolean | PlaceRefusal> {
    const record = this.load(owner);
    if (record === undefined) return false;
    if (record.status !== "input_required" || record.pending === undefined) return true;
    if (inputRound !== undefined && inputRound !== (record.inputRound ?? 0)) return true;
    const pending = { ...record.pending };
    const answers = { ...record.answers };
    for (const [key, answer] of Object.entries(inputResponses)) {
      if (!(key in pending)) continue;
      answers[key] = answer;
      delete pending[key];
    }
    if (Object.keys(pending).length > 0) {
      this.save({ ...record, pending, answers, updatedAt: Date.now() });
      return true;
    }
    // The resumed round runs again: it needs a place like a new task (else a caller could park
    // runs at input_required, where they hold none, and resume them all past the bound).
    const places = taskPlaces(record.handler);
    if (places !== undefined) {
      const refusal = await places.ledger.takePlace(
        record.taskId,
        record.countedAs ?? record.owner,
        places.perCaller,
        places.total,
      );
      if (refusal !== null) return refusal;
      // Answered meanwhile by another update (the ledger call let other requests in).
      const now = this.read();
      if (now?.status !== "input_required" || now.inputRound !== record.inputRound) {
        void this.giveBack(record);
        return true;
      }
    }
    const next: TaskRecord = {
      ...record,
      status: "working",
      statusMessage: "resumed with the client's answers",
      call: {
        ...record.call,
        inputResponses: answers,
        ...(record.requestState !== undefined && {
          requestState: record.requestState,
        }),
      },
      updatedAt: Date.now(),
    };
    delete next.pending;
    delete next.answers;
    delete next.requestState;
    this.save(next);
    void this.ctx.storage.setAlarm(Date.now() + Math.min(HEARTBEAT_MS, next.ttlMs));
    void this.runRounds();
    return true;
  }

  /**
   * Cancels the task: a live task becomes `cancelled` and its running round is aborted (the
   * sandbox run ends); a terminal task is left as it is.
   * @returns false when the task is unknown
   */
  cancel(owner: string): boolean {
    const record = this.load(owner);
    if (record === undefined) return false;
    if (TERMINAL_STATUSES.includes(record.status)) return true;
    const cancelled: TaskRecord = {
      ...record,
      status: "cancelled",
      statusMessage: "cancelled by the client",
      updatedAt: Date.now(),
    };
    delete cancelled.pending;
    this.save(cancelled);
    this.running?.abort(new Error("The task was cancelled."));
    // At once, not when the round ends: a run that ignores the abort must not keep its place.
    void this.giveBack(record);
    return true;
  }

  /**
   * Ledger role: takes a place for a task (see task-places.ts).
   * @returns null when given, else which bound was reached
   */
  takePlace(taskId: string, owner: string, perCaller: number, total: number): PlaceRefusal | null {
    return takePlaceIn(this.ctx.storage.sql, taskId, owner, perCaller, total);
  }

  /** Ledger role: extends a running task's place. */
  renewPlace(taskId: string): void {
    renewPlaceIn(this.ctx.storage.sql, taskId);
  }

  /** Ledger role: gives a task's place back. */
  givePlace(taskId: string): void {
    givePlaceIn(this.ctx.storage.sql, taskId);
  }

  /** Expiry, and the heartbeat that keeps a running round resident. */
  override async alarm(): Promise<void> {
    const record = this.read();
    if (record === undefined) return;
    const expiresAt = record.createdAt + record.ttlMs;
    if (Date.now() >= expiresAt) {
      this.running?.abort(new Error("The task expired."));
      await this.ctx.storage.deleteAll();
      await this.giveBack(record);
      return;
    }
    if (this.running !== undefined) await this.keepPlace(record);
    // "working" with no round here: the object restarted mid-round; its place goes back now.
    else if (record.status === "working") await this.giveBack(record);
    const next =
      this.running === undefined ? expiresAt : Math.min(expiresAt, Date.now() + HEARTBEAT_MS);
    await this.ctx.storage.setAlarm(next);
  }

  private async runRounds(): Promise<void> {
    const controller = new AbortController();
    this.running = controller;
    let outcome: RoundOutcome;
    try {
      const record = this.read()!;
      const server = await this.resolveServer(record.handler);
      if (server === undefined) {
        outcome = failure(
          `No MCP handler named "${record.handler}" was created with the tasks option in this isolate; ` +
            "create the handler at module scope, or override McpTaskStore.resolveServer.",
        );
      } else {
        const authInfo =
          record.authInfo === undefined ? undefined : (JSON.parse(record.authInfo) as AuthInfo);
        outcome = await this.asCaller(record, () =>
          runRound(server, record.call, authInfo, controller.signal, (message) =>
            this.progress(message),
          ),
        );
      }
    } catch (error) {
      outcome = failure(`The task's run failed: ${(error as Error).message}`);
    } finally {
      // Whatever the outcome (a result, an error, a question for the client), the run has
      // ended. Given back before the outcome is saved, so an answer can resume the task (and take
      // a place again) only after this place is gone: the two never cross in the ledger. And
      // while `running` is still set, so a tasks/get meanwhile does not take the task for one
      // interrupted by a restart.
      await this.giveBack(this.read());
      if (this.running === controller) this.running = undefined;
    }
    this.settle(outcome);
  }

  /** Gives the task's place back in its handler's ledger (best effort: a lease lapses anyway). */
  private async giveBack(record: TaskRecord | undefined): Promise<void> {
    const places = record === undefined ? undefined : taskPlaces(record.handler);
    if (record === undefined || places === undefined) return;
    await places.ledger.givePlace(record.taskId).catch(() => {});
  }

  private async keepPlace(record: TaskRecord): Promise<void> {
    const places = taskPlaces(record.handler);
    if (places === undefined) return;
    await places.ledger.renewPlace(record.taskId).catch(() => {});
  }

  private progress(message: string): void {
    const record = this.read();
    if (record === undefined || record.status !== "working" || message === "") return;
    this.save({ ...record, statusMessage: message, updatedAt: Date.now() });
  }

  private settle(outcome: RoundOutcome): void {
    const record = this.read();
    // Cancelled (or expired) while the round ran: the late outcome is dropped.
    if (record === undefined || record.status !== "working") return;
    const next: TaskRecord = { ...record, updatedAt: Date.now() };
    delete next.statusMessage;
    if (outcome.kind === "result") {
      next.status = "completed";
      next.result = taskResult(outcome.result);
    } else if (outcome.kind === "error") {
      next.status = "failed";
      next.error = outcome.error;
    } else {
      next.status = "input_required";
      next.inputRound = (record.inputRound ?? 0) + 1;
      next.statusMessage = "waiting for the client's answers (tasks/update)";
      next.pending = outcome.inputRequests;
      next.answers = {};
      if (outcome.requestState !== undefined) next.requestState = outcome.requestState;
      else delete next.requestState;
    }
    this.save(next);
  }

  private load(owner: string): TaskRecord | undefined {
    const record = this.read();
    if (record === undefined || record.owner !== owner) return undefined;
    if (Date.now() >= record.createdAt + record.ttlMs) return undefined;
    if (record.status === "working" && this.running === undefined) {
      // The object restarted while a round ran: say so instead of staying "working" forever.
      const failed: TaskRecord = {
        ...record,
        status: "failed",
        error: {
          code: PROTOCOL_CODES.internalError,
          message:
            "The task's run was interrupted (the server restarted or was redeployed while it ran); call the tool again.",
        },
        updatedAt: Date.now(),
      };
      this.save(failed);
      return failed;
    }
    return record;
  }

  private read(): TaskRecord | undefined {
    const row = this.sql()
      .exec<{ record: string }>("SELECT record FROM task WHERE k = 1")
      .toArray()[0];
    return row === undefined ? undefined : (JSON.parse(row.record) as TaskRecord);
  }

  private save(record: TaskRecord): void {
    // No round runs after a terminal status, so the caller's identity (it may carry a bearer
    // token) is not kept at rest until the TTL ends.
    const kept = TERMINAL_STATUSES.includes(record.status)
      ? { ...record, authInfo: undefined }
      : record;
    this.sql().exec(
      "INSERT INTO task (k, record) VALUES (1, ?) ON CONFLICT(k) DO UPDATE SET record = excluded.record",
      JSON.stringify(kept),
    );
  }

  private sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS task (k INTEGER PRIMARY KEY, record TEXT NOT NULL)");
    return sql;
  }
}
