/**
 * The per-run console budget, one implementation for both sides: the sandbox's console capture
 * applies it as lines are written, and the host applies it again to every line that arrives
 * (piggybacked on host calls and in the final response), so a program that gets past the
 * sandbox's capture still cannot make the host keep more. An honest sandbox's lines pass the
 * host's copy unchanged, because both count the same way in the same order.
 *
 * A line costs its UTF-8 bytes plus one (its line break), so empty lines are not free. A line
 * that does not fit is cut to the room left with a mark and spends the budget; later lines are
 * counted as dropped, never kept.
 */
import { clipUtf8, utf8Bytes } from "./truncate";

/** Appended to a line cut to fit the budget. */
export const LOG_CUT_MARK = "…[log truncated]";
const MARK_BYTES = 18;

/** A spending budget of console bytes. */
export interface LogBudget {
  /** Whether nothing more can be kept (further lines are only counted). */
  full(): boolean;
  /**
   * Spends budget on a line: returns the text to keep (the line, or its head with
   * {@link LOG_CUT_MARK}), or `undefined` when it is dropped (and counted).
   */
  admit(message: string): string | undefined;
  /** Counts `count` lines as dropped without looking at them. */
  drop(count: number): void;
  /** Lines dropped so far. */
  dropped(): number;
}

/**
 * Creates a budget of `maxBytes` for one run.
 * @param maxBytes - total cost of kept lines (UTF-8 bytes + 1 per line)
 */
export function createLogBudget(maxBytes: number): LogBudget {
  let used = 0;
  let droppedCount = 0;
  return {
    full: () => used >= maxBytes,
    admit(message) {
      // Room for the text once the line break is paid for.
      const room = maxBytes - used - 1;
      if (room < 0) {
        droppedCount++;
        return undefined;
      }
      // A length check first: a line longer than the room (bytes ≥ units) is never measured.
      if (message.length <= room) {
        const size = utf8Bytes(message);
        if (size <= room) {
          used += size + 1;
          return message;
        }
      }
      used = maxBytes;
      if (room <= MARK_BYTES) {
        droppedCount++;
        return undefined;
      }
      return clipUtf8(message, room - MARK_BYTES) + LOG_CUT_MARK;
    },
    drop(count) {
      droppedCount += count;
    },
    dropped: () => droppedCount,
  };
}
