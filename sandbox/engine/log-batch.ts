/**
 * Console lines a shared-worker run sends out of the engine with a host call, parsed only as
 * many as an honest guest can send. Every line the guest's console budget keeps costs at least
 * one byte of `maxLogBytes`, so an honest run sends at most `maxLogBytes` lines in all; but a
 * program that takes over the capture's buffer (or hooks `toJSON`) writes whatever JSON it
 * likes: the runner parsed every batch whole (1,000,000 entries a call held ~75 MB of the V8
 * heap every run of the shared worker shares) and the host deserialized it all again. Entries
 * past the run's room are counted, not parsed: they cross as holes of a sparse array, which the
 * host counts as dropped lines (as it counts any malformed line) at the cost of a length.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** What {@link readLogBatch} makes of a batch. */
export interface LogBatch {
  /** The lines to forward: parsed ones, then a hole per line past the room (or null). */
  logs: unknown;
  /** Entries parsed (spent from the run's room). */
  parsed: number;
}

/**
 * The console lines of one batch: whole when it cannot hold more than `room` entries;
 * otherwise the first `room` top-level entries, parsed, and one hole for each entry after them
 * (found by one scan that allocates nothing). Text that is not a JSON array is `null` then.
 * @param text - the guest's console JSON (`JSON.stringify` of its pending lines)
 * @param room - entries the run may still have parsed
 */
export function readLogBatch(text: string, room: number): LogBatch {
  // Each entry takes at least one character and a comma.
  if (text.length <= 2 * room + 1) {
    const logs = JSON.parse(text) as unknown;
    return { logs, parsed: Array.isArray(logs) ? logs.length : 1 };
  }
  if (text.charCodeAt(0) !== OPEN_ARRAY) return { logs: null, parsed: 0 };
  let depth = 0;
  let inString = false;
  let entries = 0;
  let roomEnd = -1;
  let empty = true;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth === 0) {
        if (!empty) entries++;
        if (entries <= room) roomEnd = i;
        break;
      }
      depth--;
    } else if (c === COMMA && depth === 0) {
      entries++;
      if (entries === room) roomEnd = i;
      continue;
    }
    empty = false;
  }
  if (entries <= room) return { logs: JSON.parse(text) as unknown, parsed: entries };
  const logs = roomEnd < 0 ? [] : (JSON.parse(`${text.slice(0, roomEnd)}]`) as unknown[]);
  // Holes: the host counts each as a dropped line; a sparse array crosses as its length.
  logs.length = entries;
  return { logs, parsed: Math.min(room, entries) };
}
