/**
 * The run history over {@link RunStore} objects, sharded by caller and day: a run is written to
 * the shard `runs:<day>:<caller key>`, so one busy deployment spreads its writes over one object
 * per caller per day instead of funnelling them through one. The index object learns each shard
 * once per isolate (not once per run). A listing walks the days newest first, asks that day's
 * shards in parallel and merges them by time, stopping once the page is full.
 *
 * Run ids carry their shard (`<day>.<caller key>.<random>`), so one run is read from its shard
 * directly.
 */
import type { RunRecord } from "../../codemode/runs/run-record";
import type { RunSettings } from "../config/run-settings";
import { RUN_INDEX_NAME, type RunStore, type RunSummary, type StoredRun } from "./run-store";
import { CodeModeError } from "../../errors";

/** Outcomes and tools a listing can filter by. */
export const RUN_OUTCOMES = ["ok", "error", "timeout", "limit"] as const;
export const RUN_TOOLS = ["search", "execute", "code"] as const;

/** A listing request. */
export interface RunQuery {
  /** Page size (1..200, default 50). */
  limit?: number;
  /** From a previous page's `nextCursor`. */
  cursor?: string;
  outcome?: string;
  tool?: string;
  /**
   * Only this caller's runs (as caller.ts names it). The router sets it for OAuth users:
   * one user never reads another's programs and results.
   */
  caller?: string;
}

/** One page of runs, newest first. */
export interface RunPage {
  runs: RunSummary[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** The product's run history. */
export interface RunHistory {
  /** Stores a run of `caller` (called off the run's path). */
  record(record: RunRecord, caller: string): Promise<void>;
  /** One page of runs. @throws CodeModeError `invalid_query` for a bad filter, limit or cursor */
  list(query: RunQuery): Promise<RunPage>;
  /** One run, or undefined when unknown, pruned or (with `caller`) someone else's. */
  get(id: string, caller?: string): Promise<StoredRun | undefined>;
}

const DAY_MS = 86_400_000;
const registered = new Set<string>();
/** How many shard ids one history keeps (a name per caller and day: far more than a day sees). */
const MAX_KEPT_IDS = 10_000;

/**
 * Builds the history over the `RUNS` binding.
 * @param namespace - the RunStore binding
 * @param settings - retention
 * @param now - the clock (tests move it)
 */
export function runHistory(
  namespace: DurableObjectNamespace<RunStore>,
  settings: Pick<RunSettings, "retentionDays" | "retentionCount" | "retentionBytes">,
  now: () => number = Date.now,
): RunHistory {
  // A shard's id, derived once per name: `idFromName` hashes the name on every call (~0.3 % of
  // the host's CPU per `execute`, issue #43). Ids, unlike stubs, belong to no request, so they
  // may be kept across requests; the stub is still made per use. Bounded like `registered`.
  const ids = new Map<string, DurableObjectId>();
  const store = (name: string) => {
    let id = ids.get(name);
    if (id === undefined) {
      if (ids.size >= MAX_KEPT_IDS) ids.clear();
      id = namespace.idFromName(name);
      ids.set(name, id);
    }
    return namespace.get(id);
  };
  const index = () => store(RUN_INDEX_NAME);
  const cutoff = () => now() - settings.retentionDays * DAY_MS;

  return {
    async record(record, caller) {
      const day = dayOf(record.startedAt);
      const key = await callerKey(caller);
      const name = `runs:${day}:${key}`;
      if (!registered.has(name)) {
        await index().register(name, day);
        if (registered.size > 10_000) registered.clear();
        registered.add(name);
      }
      const run: StoredRun = {
        ...record,
        id: `${day}.${key}.${record.id}`,
        caller,
      };
      await store(name).add(run, {
        cutoff: cutoff(),
        count: settings.retentionCount,
        bytes: settings.retentionBytes,
      });
    },

    async list(query) {
      const limit = query.limit ?? 50;
      if (!Number.isInteger(limit) || limit < 1 || limit > 200)
        throw new CodeModeError(
          "invalid_query",
          `limit must be a whole number from 1 to 200; got ${limit}.`,
        );
      oneOf("outcome", query.outcome, RUN_OUTCOMES);
      oneOf("tool", query.tool, RUN_TOOLS);
      const before = query.cursor === undefined ? undefined : readCursor(query.cursor);
      const { live: every, expired } = await index().shards(dayOf(cutoff()));
      await Promise.all(expired.map((name) => store(name).clear()));
      // A caller's shards end with its key (`runs:<day>:<key>`): the others are never asked.
      const own = query.caller === undefined ? undefined : `:${await callerKey(query.caller)}`;
      const live = own ? every.filter((s) => s.name.endsWith(own)) : every;
      const days = [...new Set(live.map((s) => s.day))].filter(
        (day) => !before || day <= dayOf(before[0]),
      );
      const found: RunSummary[] = [];
      const minTime = cutoff();
      for (const day of days) {
        const names = live.filter((s) => s.day === day).map((s) => s.name);
        const pages = await Promise.all(
          names.map((name) =>
            store(name).list({
              limit: limit + 1,
              ...(before ? { before } : {}),
              ...(query.outcome ? { outcome: query.outcome } : {}),
              ...(query.tool ? { tool: query.tool } : {}),
            }),
          ),
        );
        found.push(...pages.flat().filter((run) => run.startedAt > minTime));
        // Every later day holds only older runs: a full page here is final.
        if (found.length > limit) break;
      }
      found.sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      const runs = found.slice(0, limit);
      const last = runs[runs.length - 1];
      return found.length > limit && last
        ? { runs, nextCursor: writeCursor([last.startedAt, last.id]) }
        : { runs };
    },

    async get(id, caller) {
      const match = /^(\d{4}-\d{2}-\d{2})\.([0-9a-f]{16})\.[0-9a-f]{1,40}$/.exec(id);
      if (!match) return undefined;
      if (caller !== undefined && match[2] !== (await callerKey(caller))) return undefined;
      const run = await store(`runs:${match[1]}:${match[2]}`).get(id);
      return run && run.startedAt > cutoff() ? run : undefined;
    },
  };
}

/** The UTC day {@link dayOf} named last: from `start` up to (not including) `end`, epoch ms. */
let lastDay = { start: Number.NaN, end: Number.NaN, name: "" };

/** The latest time a `Date` holds (ECMAScript's range is ±8.64e15 ms around the epoch). */
const LAST_TIME = 8.64e15;

/**
 * The UTC day of `time`, as `YYYY-MM-DD` (the shards' names). Every recorded run asks for it,
 * nearly always for the same day as the run before: that day's name is kept with its bounds, so
 * only a time outside them formats a `Date` (~0.4 % of the host's CPU per trivial `execute` on
 * the local server, issue #43).
 * @param time - epoch ms
 * @throws RangeError for a time no `Date` holds, as formatting it does
 */
export function dayOf(time: number): string {
  const { start, end, name } = lastDay;
  if (time >= start && time < end) return name;
  // Formatting the time itself refuses what no Date holds (NaN, past ±8.64e15).
  const named = new Date(time).toISOString().slice(0, 10);
  const first = time - (((time % DAY_MS) + DAY_MS) % DAY_MS);
  // The last day a Date reaches holds a single millisecond: the bound keeps past it refused.
  lastDay = { start: first, end: Math.min(first + DAY_MS, LAST_TIME + 1), name: named };
  return named;
}

/** Keys of the callers this isolate recorded runs for lately (one digest per caller, not per run). */
const callerKeys = new Map<string, string>();

/** A short, stable key for a caller (names its shards without spelling out who it is). */
async function callerKey(caller: string): Promise<string> {
  const known = callerKeys.get(caller);
  if (known !== undefined) return known;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(caller));
  const key = [...new Uint8Array(digest).slice(0, 8)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  // Bounded as `registered` is: a flood of callers costs a digest each again, never memory.
  if (callerKeys.size >= 10_000) callerKeys.clear();
  callerKeys.set(caller, key);
  return key;
}

function oneOf(name: string, value: string | undefined, allowed: readonly string[]): void {
  if (value !== undefined && !allowed.includes(value))
    throw new CodeModeError(
      "invalid_query",
      `${name} must be one of ${allowed.join(", ")}; got "${value}".`,
    );
}

function writeCursor(position: [number, string]): string {
  return btoa(JSON.stringify(position)).replaceAll("=", "");
}

function readCursor(cursor: string): [number, string] {
  try {
    const value: unknown = JSON.parse(atob(cursor));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "number" &&
      typeof value[1] === "string"
    )
      return [value[0], value[1]];
  } catch {
    // reported below
  }
  throw new CodeModeError(
    "invalid_query",
    "cursor is not one this server issued: pass a page's nextCursor as is.",
  );
}
