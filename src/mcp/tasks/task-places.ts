/**
 * The bound on tasks that run at once: a task takes a **place** before its run starts and gives
 * it back when the run ends, so task-augmented calls (answered `working` at once, holding no
 * connection) cannot pile up runs past what the host can hold (#40: 1,500 accepted tasks grew
 * the server by 2.5 GB and starved other callers).
 *
 * Where the count lives: one ledger per handler, a Durable Object of the task namespace itself
 * (named `places:<handler name>`; task objects are named by UUIDs, so the names never meet). It
 * is one object for every isolate and every host, so the bound holds deployed (many isolates) as
 * locally. A place is a row with a lease: the task's object renews it with its heartbeat while a
 * round runs and deletes it when the round ends, is cancelled or expires; a place whose task's
 * host went away (restart, redeploy) is not renewed and lapses after {@link PLACE_LEASE_MS}.
 *
 * Does not do: queue. Past the bound a call is refused at once with a JSON-RPC error that says
 * which bound and what to do; nothing is created, so nothing is lost.
 */
import { ProtocolError } from "@modelcontextprotocol/server";
import { PROTOCOL_CODES } from "../../errors";

/** How many tasks may run at once (the `limits` of the `tasks` option). */
export interface TaskLimits {
  /**
   * Per caller (the handler's `countAs`, else the signed-in user, else the OAuth client;
   * anonymous callers are one unless `countAs` tells them apart). Default 16.
   */
  perCaller?: number;
  /** In total, for the handler. Default 64. */
  total?: number;
}

/**
 * The defaults. A run's host cost is its sandbox plus the round's request in the task's object:
 * about 1.7 MB for a program that only sleeps (#40: 1,500 runs, +2.5 GB), and up to the sandbox's
 * memory limit for one that works. 64 working runs stay far under one host's memory; 16 per
 * caller leaves room for four busy callers before anyone is refused.
 */
export const DEFAULT_TASK_LIMITS = { perCaller: 16, total: 64 } as const;

/** How long a place outlives its last renewal (two heartbeats and a margin). */
export const PLACE_LEASE_MS = 65_000;

/** Why no place was given: which bound was reached, and its size. */
export interface PlaceRefusal {
  bound: "perCaller" | "total";
  max: number;
}

/**
 * A handler's ledger as the task objects call it: the ledger role of `McpTaskStore` (declared
 * here, not imported, so this file stays below the store and the handler's task support).
 */
export interface PlaceLedger {
  takePlace(
    taskId: string,
    owner: string,
    perCaller: number,
    total: number,
  ): Promise<PlaceRefusal | null>;
  renewPlace(taskId: string): Promise<void>;
  givePlace(taskId: string): Promise<void>;
}

/** A handler's ledger and its limits (defaults filled in). */
export interface TaskPlaces {
  ledger: PlaceLedger;
  perCaller: number;
  total: number;
}

const ledgers = new Map<string, () => TaskPlaces>();

/**
 * Makes a handler's ledger reachable from task objects in this isolate (beside its round server).
 * @param name - the handler's task name
 * @param places - the handler's ledger (a stub, made per use) and limits
 */
export function registerTaskPlaces(name: string, places: () => TaskPlaces): void {
  ledgers.set(name, places);
}

/** The ledger of the handler registered under `name` in this isolate, with its limits. */
export function taskPlaces(name: string): TaskPlaces | undefined {
  return ledgers.get(name)?.();
}

/**
 * The limits of a `tasks` option, defaults filled in.
 * @param limits - the option's `limits`
 */
export function limitsOf(limits: TaskLimits | undefined): { perCaller: number; total: number } {
  return {
    perCaller: limits?.perCaller ?? DEFAULT_TASK_LIMITS.perCaller,
    total: limits?.total ?? DEFAULT_TASK_LIMITS.total,
  };
}

/**
 * The JSON-RPC error of a refused task: which bound, and what to do instead.
 * @param refusal - the ledger's answer
 */
export function tooManyTasks(refusal: PlaceRefusal): ProtocolError {
  const who =
    refusal.bound === "perCaller"
      ? `you already have ${refusal.max} tasks running (the most one caller may run at once)`
      : `this server already runs ${refusal.max} tasks (the most it runs at once)`;
  return new ProtocolError(
    PROTOCOL_CODES.serverError,
    `Too many tasks: ${who}. Wait for one of your tasks to end (or cancel one with tasks/cancel) and call again, or call the tool without a task.`,
    { limit: refusal.bound, max: refusal.max },
  );
}

/**
 * Takes a place in a ledger's storage (one SQLite statement sequence: the object's input gate
 * makes it atomic). Lapsed leases are dropped first.
 * @returns null when given (or already held by this task), else why not
 */
export function takePlaceIn(
  sql: SqlStorage,
  taskId: string,
  owner: string,
  perCaller: number,
  total: number,
): PlaceRefusal | null {
  const now = Date.now();
  placeTable(sql);
  sql.exec("DELETE FROM place WHERE until <= ?", now);
  const held = sql.exec("SELECT 1 FROM place WHERE task = ?", taskId).toArray().length > 0;
  if (!held) {
    const mine = sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM place WHERE owner = ?", owner)
      .one().n;
    if (mine >= perCaller) return { bound: "perCaller", max: perCaller };
    const all = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM place").one().n;
    if (all >= total) return { bound: "total", max: total };
  }
  sql.exec(
    "INSERT INTO place (task, owner, until) VALUES (?, ?, ?) ON CONFLICT(task) DO UPDATE SET until = excluded.until",
    taskId,
    owner,
    now + PLACE_LEASE_MS,
  );
  return null;
}

/** Extends a held place's lease (a place already given back stays given back). */
export function renewPlaceIn(sql: SqlStorage, taskId: string): void {
  placeTable(sql);
  sql.exec("UPDATE place SET until = ? WHERE task = ?", Date.now() + PLACE_LEASE_MS, taskId);
}

/** Gives a place back (idempotent). */
export function givePlaceIn(sql: SqlStorage, taskId: string): void {
  placeTable(sql);
  sql.exec("DELETE FROM place WHERE task = ?", taskId);
}

function placeTable(sql: SqlStorage): void {
  sql.exec(
    "CREATE TABLE IF NOT EXISTS place (task TEXT PRIMARY KEY, owner TEXT NOT NULL, until INTEGER NOT NULL)",
  );
}
