/**
 * Captures console output of a run into a bounded buffer. Nothing reaches the runtime's own
 * console: sandbox output may contain anything the code saw, and the host decides where it goes.
 */
import { formatLogArgs } from "./format-value";
import { utf8Bytes } from "./truncate";

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

const LEVELS: readonly LogLevel[] = ["log", "info", "warn", "error", "debug"];

/**
 * Creates a capture with a total budget of `maxBytes` of message text for the whole run.
 * @param maxBytes - total UTF-8 bytes of log messages kept; later lines are counted, not kept
 */
export function createConsoleCapture(maxBytes: number): ConsoleCapture {
  let pending: LogEntry[] = [];
  let used = 0;
  let droppedCount = 0;

  const write = (level: LogLevel, args: unknown[]): void => {
    if (used >= maxBytes) {
      droppedCount++;
      return;
    }
    let message = formatLogArgs(args);
    const size = utf8Bytes(message);
    if (used + size > maxBytes) {
      const room = Math.max(0, maxBytes - used);
      message = `${message.slice(0, room)}…[log truncated]`;
    }
    used += Math.min(size, maxBytes);
    pending.push({ level, message });
  };

  const facade: Record<string, unknown> = {};
  for (const level of LEVELS) facade[level] = (...args: unknown[]) => write(level, args);
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
    dropped: () => droppedCount,
  };
}
