/**
 * The hard size of one run record: {@link RUN_RECORD_LIMITS}`.recordBytes` of JSON (64 KiB). Each
 * field already has its own bound, but together they allowed far more: a hostile run of 220
 * refused requests with 500-character paths and 2,000-character errors wrote 726,699 bytes, about
 * 0.7 GB per caller and day at the default retention. A record over the cap is cut in stages,
 * each keeping the parts that say most about the run and marking what went:
 *
 * 1. each call's path and error shortened;
 * 2. only the first and last calls kept (`droppedCallsAt` marks where the others were, counted in
 *    `droppedCalls`);
 * 3. only the first and last console lines kept, each shortened (the rest counted in
 *    `droppedLogs`);
 * 4. the result and the error message shortened;
 * 5. the program kept as its start and its end, with a mark saying how much of the middle went;
 * 6. last, small fixed sizes for all of these.
 *
 * Stage 6 fits by construction (every kept text is at most a few thousand characters, and JSON
 * writes a character in at most 6 bytes), so the largest record any run can write is the cap.
 */
import { RUN_RECORD_LIMITS, type RunRecord } from "./run-record";

const encoder = new TextEncoder();

/**
 * The record's size as stored (UTF-8 bytes of its JSON).
 * @param record - a run record, or a stored one with more fields
 */
export function recordBytes(record: object): number {
  return encoder.encode(JSON.stringify(record)).byteLength;
}

/**
 * Whether the record's JSON is at most `cap` bytes of UTF-8, told from its length alone where
 * that decides it: a UTF-16 code unit is 1 to 3 bytes of UTF-8 (a surrogate pair, two units, 4),
 * so text of `n` units is `n` to `3n` bytes. Only a record in between is encoded. Why: every run
 * is checked against the cap when it ends, and nearly every record is far under it; encoding
 * its JSON only to count the bytes was ~0.5 % of the host's CPU per trivial `execute` on the
 * local server (issue #43).
 * @param record - a run record, or a stored one with more fields
 * @param cap - the most bytes
 */
export function fitsBytes(record: object, cap: number): boolean {
  const json = JSON.stringify(record);
  if (json.length * 3 <= cap) return true;
  if (json.length > cap) return false;
  return encoder.encode(json).byteLength <= cap;
}

/** Text cut to `max` characters, keeping its start and end and marking the cut. */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max * 0.75);
  const tail = max - head;
  const mark = `\n… [${text.length - head - tail} characters cut] …\n`;
  return `${text.slice(0, head)}${mark}${tail > 0 ? text.slice(-tail) : ""}`;
}

const short = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}…`);

/** The first `head` and last `tail` of a list, with the index where the dropped ones were. */
function ends<T>(list: T[], head: number, tail: number): { kept: T[]; dropped: number } {
  if (list.length <= head + tail) return { kept: list, dropped: 0 };
  return {
    kept: [...list.slice(0, head), ...list.slice(-tail)],
    dropped: list.length - head - tail,
  };
}

interface Sizes {
  callText: number;
  calls: number;
  logs: number;
  logText: number;
  result: number;
  error: number;
  code: number;
}

// Each stage's sizes; a stage applies only its own and the earlier stages' reductions.
const STAGES: Partial<Sizes>[] = [
  { callText: 200 },
  { calls: 10 },
  { logs: 5, logText: 1_000 },
  { result: 4_000, error: 1_000 },
  { code: 8_000 },
  { callText: 100, calls: 1, logs: 1, logText: 200, result: 500, error: 300, code: 1_500 },
];

/**
 * The record itself when it fits the cap, else a copy cut down in stages (see the file header).
 * @param record - a bounded run record
 * @param cap - the most bytes of JSON (the record limit by default)
 */
export function fitRecord(record: RunRecord, cap = RUN_RECORD_LIMITS.recordBytes): RunRecord {
  if (fitsBytes(record, cap)) return record;
  let sizes: Partial<Sizes> = {};
  let fitted = record;
  for (const stage of STAGES) {
    sizes = { ...sizes, ...stage };
    fitted = shrink(record, sizes);
    if (fitsBytes(fitted, cap)) return fitted;
  }
  return fitted;
}

function shrink(record: RunRecord, sizes: Partial<Sizes>): RunRecord {
  let calls = record.calls;
  let droppedCalls = record.droppedCalls;
  let droppedCallsAt = record.droppedCallsAt;
  if (sizes.callText !== undefined) {
    const max = sizes.callText;
    calls = calls.map((call) => ({
      ...call,
      ...(call.kind === "request"
        ? { path: short(call.path, max) }
        : { name: short(call.name, max) }),
      ...(call.error === undefined ? {} : { error: short(call.error, max) }),
    }));
  }
  if (sizes.calls !== undefined && calls.length > sizes.calls * 2) {
    // Keep the first and the last calls of what is held; the held list may already have a gap.
    const head = Math.min(sizes.calls, droppedCallsAt ?? sizes.calls);
    const { kept, dropped } = ends(calls, head, sizes.calls);
    calls = kept;
    droppedCalls += dropped;
    droppedCallsAt = head;
  }
  let logs = record.logs;
  let droppedLogs = record.droppedLogs;
  if (sizes.logs !== undefined) {
    const { kept, dropped } = ends(logs, sizes.logs, sizes.logs);
    logs = kept.map((entry) => ({
      ...entry,
      message: short(entry.message, sizes.logText ?? 1_000),
    }));
    droppedLogs += dropped;
  }
  const error = record.error && {
    ...record.error,
    name: short(record.error.name, 100),
    message: short(record.error.message, sizes.error ?? record.error.message.length),
  };
  return {
    ...record,
    code: sizes.code === undefined ? record.code : cutMiddle(record.code, sizes.code),
    ...(error ? { error } : {}),
    calls,
    droppedCalls,
    ...(droppedCallsAt === undefined ? {} : { droppedCallsAt }),
    logs,
    droppedLogs,
    result: sizes.result === undefined ? record.result : short(record.result, sizes.result),
    clipped: true,
  };
}
