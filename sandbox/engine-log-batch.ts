/**
 * Console lines a shared-worker run sends out of the engine with a host call, read within what
 * an honest guest can send. The guest's console budget keeps an honest run's console JSON within
 * {@link maxLogChars} over the whole run, but a program that takes over the capture's buffer (or
 * hooks `toJSON`) writes whatever JSON it likes: the runner parsed every batch whole (1,000,000
 * entries a call held ~75 MB of the V8 heap every run of the shared worker shares), and the
 * host deserialized it all again. Past the room, lines are counted, not parsed: they cross as
 * holes of a sparse array, which the host counts as dropped lines (as it counts any malformed
 * line) at the cost of a length.
 */
import type { EngineRunRequest } from "./engine-protocol";

/** JSON of one console line beyond its text: `{"level":"debug","message":""}` and a comma. */
const LINE_OVERHEAD = 31;
/** Most JSON characters one UTF-8 byte of text takes (`\u0001`). */
const ESCAPED = 6;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Console JSON text (UTF-16 units) an honest guest sends over a whole run: every kept line
 * costs at least one byte of `maxLogBytes`, so its lines and their bytes together are bounded.
 * @param request - the run's limits
 */
export function maxLogChars(request: Pick<EngineRunRequest, "maxLogBytes">): number {
  return (LINE_OVERHEAD + ESCAPED) * request.maxLogBytes + 1_024;
}

/** What {@link readLogBatch} makes of a batch. */
export interface LogBatch {
  /** The lines to forward: parsed ones, then a hole per line past the room (or null). */
  logs: unknown;
  /** Characters of the text that were parsed (spent from the run's room). */
  chars: number;
}

/**
 * The console lines of one batch: whole when the text fits `room`; otherwise the top-level
 * entries that fit, parsed, and one hole for each entry after them (found by one scan that
 * allocates nothing). Text that is not a JSON array and does not fit is `null`.
 * @param text - the guest's console JSON (`JSON.stringify` of its pending lines)
 * @param room - characters the run may still have parsed
 */
export function readLogBatch(text: string, room: number): LogBatch {
  if (text.length <= room) return { logs: JSON.parse(text) as unknown, chars: text.length };
  if (text.charCodeAt(0) !== OPEN_ARRAY) return { logs: null, chars: 0 };
  let depth = 0;
  let inString = false;
  let entries = 0;
  let fitEnd = -1;
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
      if (depth === 0) break;
      depth--;
    } else if (c === COMMA && depth === 0) {
      entries++;
      if (i < room) fitEnd = i;
      continue;
    }
    empty = false;
  }
  if (!empty) entries++;
  const logs = fitEnd < 0 ? [] : (JSON.parse(`${text.slice(0, fitEnd)}]`) as unknown[]);
  // Holes: the host counts each as a dropped line; a sparse array crosses as its length.
  logs.length = entries;
  return { logs, chars: fitEnd < 0 ? 0 : fitEnd };
}
