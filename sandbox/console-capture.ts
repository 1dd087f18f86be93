/**
 * Captures console output of a run into a bounded buffer. Nothing reaches the runtime's own
 * console: sandbox output may contain anything the code saw, and the host decides where it goes.
 */
import { formatLogArgs } from "./format-value";
import { createLogBudget } from "./log-budget";

/** Console levels the sandbox captures. */
export type LogLevel = "log" | "info" | "warn" | "error" | "debug";

/** One captured console line. */
export interface LogEntry {
  level: LogLevel;
  message: string;
}

/** A bounded log buffer with a console facade writing into it. */
export interface ConsoleCapture {
  /** Replacement `console` object to install as the sandbox's global console. */
  readonly console: Console;
  /** Returns and forgets the entries captured since the previous call. */
  drain(): LogEntry[];
  /** How many entries were dropped because the byte budget was spent. */
  dropped(): number;
}

const NONE = Object.freeze([]) as unknown as LogEntry[];

/** The console levels, in order; the host accepts only these. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze([
  "log",
  "info",
  "warn",
  "error",
  "debug",
]);

/**
 * Creates a capture with a total budget of `maxBytes` for the whole run (see log-budget.ts).
 * @param maxBytes - UTF-8 bytes of log lines kept, plus one per line; later lines are counted
 */
export function createConsoleCapture(maxBytes: number): ConsoleCapture {
  let pending: LogEntry[] = [];
  const budget = createLogBudget(maxBytes);

  const write = (level: LogLevel, args: unknown[]): void => {
    // Once the budget is spent, nothing is formatted: a log flood costs a counter increment.
    if (budget.full()) return budget.drop(1);
    const message = budget.admit(formatLogArgs(args));
    if (message !== undefined) pending.push({ level, message });
  };

  const facade: Record<string, unknown> = {};
  for (const level of LOG_LEVELS) facade[level] = (...args: unknown[]) => write(level, args);
  // Less common methods map onto the five levels so code using them still runs.
  facade["trace"] = (...args: unknown[]) => write("debug", args);
  facade["dir"] = (value: unknown) => write("log", [value]);
  facade["table"] = (value: unknown) => write("log", [value]);
  for (const name of [
    "group",
    "groupCollapsed",
    "groupEnd",
    "time",
    "timeEnd",
    "timeLog",
    "count",
    "countReset",
    "assert",
    "clear",
  ]) {
    facade[name] =
      name === "assert"
        ? (ok: unknown, ...rest: unknown[]) => ok || write("error", ["Assertion failed", ...rest])
        : () => {};
  }

  return {
    console: Object.freeze(facade) as unknown as Console,
    drain() {
      // Drained before every host call: most of the time there is nothing, so allocate nothing.
      if (pending.length === 0) return NONE;
      const out = pending;
      pending = [];
      return out;
    },
    dropped: () => budget.dropped(),
  };
}
