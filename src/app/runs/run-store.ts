/**
 * `RunStore`: run records in a Durable Object's SQLite. Two roles, one class (one binding, one
 * migration): a shard holds the runs of one caller on one day (`runs` table), and the instance
 * named {@link RUN_INDEX_NAME} lists the shards that exist (`shards` table), so a listing can
 * merge them without a scan. See run-history.ts for the layout.
 *
 * Retention happens here: every write deletes the shard's records older than the cutoff, beyond
 * the count and, oldest first, beyond the byte budget (one caller's records of one day, as stored:
 * with records of at most 64 KiB, the count alone allowed 64 MB per caller and day); the index
 * drops (and reports) shards whose day fell out of retention.
 */
import { DurableObject } from "cloudflare:workers";
import type { RunRecord } from "../../codemode/runs/run-record";
import { programPreview } from "./program-preview";

const encoder = new TextEncoder();

/** Bytes of `text` as UTF-8: its length when it is ASCII (no copy made), else encoded. */
export function utf8Length(text: string): number {
  return /[\u0080-\uffff]/.test(text) ? encoder.encode(text).byteLength : text.length;
}

/** The index instance's name. */
export const RUN_INDEX_NAME = "runs-index";

/** A run as the listing shows it (no program, logs or result). */
export interface RunSummary {
  id: string;
  startedAt: number;
  tool: RunRecord["tool"];
  server: string;
  /** Who ran it: `anonymous`, `api-key`, `oauth:<user>` or `caller-token`. */
  caller: string;
  outcome: RunRecord["outcome"];
  durationMs: number;
  /** Requests or upstream tool calls made. */
  calls: number;
  /** Of those, the ones that failed (non-2xx, refused, tool error). */
  failedCalls: number;
  /** The program's first line, cut short. */
  preview: string;
  /** The error message, cut short. */
  error?: string;
}

/** A stored run: the record with the caller. */
export type StoredRun = RunRecord & { caller: string };

/** One page of a shard's listing, newest first. */
export interface ShardQuery {
  /** Only runs before this position (exclusive), newest first: `[startedAt, id]`. */
  before?: [number, string];
  limit: number;
  outcome?: string;
  tool?: string;
}

/**
 * A shard's retention: records at or before `cutoff` (epoch ms) go, and, oldest first, all beyond
 * `count` records or `bytes` bytes of stored JSON.
 */
export interface Retention {
  cutoff: number;
  count: number;
  bytes: number;
}

/** The run history's Durable Object. */
export class RunStore extends DurableObject<Cloudflare.Env> {
  private ready = false;
  /** Records in this shard, counted once per wake-up and kept by {@link add}. */
  private rows: number | undefined;
  /** Bytes of stored records in this shard, summed once per wake-up and kept by {@link add}. */
  private stored: number | undefined;
  /**
   * At or before the earliest `started_at` held (Infinity: none), read once per wake-up and kept
   * by {@link add}: a write runs the retention's cutoff delete only when something may be due,
   * one statement fewer per run (issue #43: the write shares the Worker's thread locally).
   */
  private oldest: number | undefined;

  private sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.ready) {
      sql.exec(`CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, started_at INTEGER NOT NULL,
        tool TEXT NOT NULL, outcome TEXT NOT NULL, summary TEXT NOT NULL, record TEXT NOT NULL)`);
      sql.exec("CREATE INDEX IF NOT EXISTS runs_by_time ON runs (started_at, id)");
      // Shards written before the byte budget have no size column; their rows count as 0.
      const columns = sql.exec<{ name: string }>("PRAGMA table_info(runs)").toArray();
      if (!columns.some((column) => column.name === "size"))
        sql.exec("ALTER TABLE runs ADD COLUMN size INTEGER NOT NULL DEFAULT 0");
      sql.exec("CREATE TABLE IF NOT EXISTS shards (name TEXT PRIMARY KEY, day TEXT NOT NULL)");
      this.ready = true;
    }
    return sql;
  }

  /**
   * Stores a run and applies the retention to this shard.
   * @param run - the record with its caller
   * @param retention - cutoff and count
   */
  add(run: StoredRun, retention: Retention): void {
    const sql = this.sql();
    const summary: RunSummary = {
      id: run.id,
      startedAt: run.startedAt,
      tool: run.tool,
      server: run.server,
      caller: run.caller,
      outcome: run.outcome,
      durationMs: run.durationMs,
      calls: run.calls.length + run.droppedCalls,
      failedCalls: run.calls.filter((c) => !c.ok).length,
      preview: programPreview(run.code),
      ...(run.error ? { error: run.error.message.slice(0, 300) } : {}),
    };
    const rows = this.rows ?? this.count();
    const stored = this.stored ?? this.bytes();
    const oldest = this.oldest ?? this.oldestHeld();
    const record = JSON.stringify(run);
    const summaryText = JSON.stringify(summary);
    const size = utf8Length(record) + utf8Length(summaryText);
    const added = sql.exec(
      "INSERT OR REPLACE INTO runs (id, started_at, tool, outcome, summary, record, size) VALUES (?, ?, ?, ?, ?, ?, ?)",
      run.id,
      run.startedAt,
      run.tool,
      run.outcome,
      summaryText,
      record,
      size,
    );
    // Deletes below only raise the true earliest: this stays at or before it.
    this.oldest = Math.min(oldest, run.startedAt);
    // Run ids are random: a replaced id (never seen in practice) is counted again from the table.
    [this.rows, this.stored] =
      added.rowsRead > 0 ? [undefined, undefined] : [rows + 1, stored + size];
    // A shard holds one day, so this finds nothing unless the clock moved: run only when a
    // record held may be at or before the cutoff.
    if (
      this.oldest <= retention.cutoff &&
      sql.exec("DELETE FROM runs WHERE started_at <= ?", retention.cutoff).rowsWritten > 0
    )
      [this.rows, this.stored, this.oldest] = [undefined, undefined, undefined];
    // Over the byte budget: the oldest records go, one at a time (a record is at most 64 KiB, so
    // a write frees one or two), until it fits.
    while ((this.stored ?? this.bytes()) > retention.bytes) {
      const freed = sql
        .exec<{ size: number }>(
          "DELETE FROM runs WHERE id IN (SELECT id FROM runs ORDER BY started_at, id LIMIT 1) RETURNING size",
        )
        .toArray();
      if (freed.length === 0) break;
      this.stored = (this.stored ?? this.bytes()) - freed.reduce((n, row) => n + row.size, 0);
      this.rows = (this.rows ?? this.count()) - freed.length;
    }
    // Trim only what is over the count, oldest first: a write reads a row or two, not the
    // whole shard (rows read are what SQLite-backed Durable Objects bill).
    const over = (this.rows ?? this.count()) - retention.count;
    if (over > 0) {
      const freed = sql
        .exec<{ size: number }>(
          `DELETE FROM runs WHERE id IN (SELECT id FROM runs ORDER BY started_at, id LIMIT ?) RETURNING size`,
          over,
        )
        .toArray();
      this.rows = retention.count;
      if (this.stored !== undefined) this.stored -= freed.reduce((n, row) => n + row.size, 0);
    }
  }

  /** The earliest `started_at` held, or Infinity when the shard is empty. */
  private oldestHeld(): number {
    return (
      this.sql().exec<{ t: number | null }>("SELECT min(started_at) AS t FROM runs").one().t ??
      Infinity
    );
  }

  /** Bytes of the records held, as counted when they were stored (tests and the budget). */
  bytes(): number {
    return this.sql().exec<{ n: number | null }>("SELECT sum(size) AS n FROM runs").one().n ?? 0;
  }

  /**
   * Lists this shard's runs, newest first.
   * @param query - position, page size and filters
   */
  list(query: ShardQuery): RunSummary[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (query.before) {
      where.push("(started_at < ? OR (started_at = ? AND id < ?))");
      args.push(query.before[0], query.before[0], query.before[1]);
    }
    if (query.outcome) {
      where.push("outcome = ?");
      args.push(query.outcome);
    }
    if (query.tool) {
      where.push("tool = ?");
      args.push(query.tool);
    }
    const rows = this.sql()
      .exec<{ summary: string }>(
        `SELECT summary FROM runs ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
          ORDER BY started_at DESC, id DESC LIMIT ?`,
        ...args,
        query.limit,
      )
      .toArray();
    return rows.map((row) => JSON.parse(row.summary) as RunSummary);
  }

  /**
   * One run's whole record.
   * @param id - the run's id
   */
  get(id: string): StoredRun | undefined {
    const row = this.sql()
      .exec<{ record: string }>("SELECT record FROM runs WHERE id = ?", id)
      .toArray()[0];
    return row ? (JSON.parse(row.record) as StoredRun) : undefined;
  }

  /** Records held (tests and the status report). */
  count(): number {
    return this.sql().exec<{ n: number }>("SELECT count(*) AS n FROM runs").one().n;
  }

  /** Deletes every record of this shard (its day fell out of retention). */
  async clear(): Promise<void> {
    await this.ctx.storage.deleteAll();
    this.ready = false;
    this.rows = undefined;
    this.stored = undefined;
    this.oldest = undefined;
  }

  /**
   * Index role: notes that a shard exists.
   * @param name - the shard's name
   * @param day - its day, `YYYY-MM-DD`
   */
  register(name: string, day: string): void {
    this.sql().exec("INSERT OR IGNORE INTO shards (name, day) VALUES (?, ?)", name, day);
  }

  /**
   * Index role: the shards within retention, newest day first, and (removed from the index)
   * those whose day is before `firstDay`, for the caller to clear.
   * @param firstDay - the oldest day kept, `YYYY-MM-DD`
   */
  shards(firstDay: string): {
    live: { name: string; day: string }[];
    expired: string[];
  } {
    const sql = this.sql();
    const expired = sql
      .exec<{ name: string }>("DELETE FROM shards WHERE day < ? RETURNING name", firstDay)
      .toArray()
      .map((row) => row.name);
    const live = sql
      .exec<{ name: string; day: string }>("SELECT name, day FROM shards ORDER BY day DESC")
      .toArray()
      .map((row) => ({ name: row.name, day: row.day }));
    return { live, expired };
  }
}
