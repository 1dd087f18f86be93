/**
 * Searching a long text for a short pattern in bounded windows, as a sliced pass (./slices.ts):
 * each regular expression call sees at most {@link WINDOW} + {@link OVERLAP} characters, and the
 * windows are charged to the pass's slice budget ({@link CHARACTERS_PER_POSITION}).
 *
 * Why windows (issue #40): every local workerd runs with V8's
 * `--enable-experimental-regexp-engine-on-excessive-backtracks` and a threshold of 50,000
 * backtracks (cli/local-server/v8-flags.mjs), and V8 counts backtracks over one whole `exec`,
 * all start positions together. A pattern that backtracks a few times per position (the octal
 * view's lead at every `2541` of `%2541%25%41a%2525`) passes that threshold somewhere in a 4 MB
 * body, and the rest of the search runs on the linear engine: 4.3 s of one call and 2.5 GB of
 * peak RSS in Node with the same flags, +95 MiB of the host in test/e2e/heavy-bodies.mjs where
 * it was +36 without the notation views. A window of 4,096 characters holds fewer than 50,000
 * backtracks for every pattern here (at most ~7 per position), so the engine never switches,
 * and were it to, it would work on one window.
 *
 * A pattern searched this way must match at most {@link OVERLAP} characters, or the overlap
 * its search is given (bounded repetitions only: `\s{1,16}`, not `\s+`), so a match that
 * starts in a window lies whole in what that window's call sees. Each match found in a window is confirmed by the same pattern,
 * sticky, at its place in the whole text, so `^`, `$` and `\b` read the text's real neighbours,
 * not the window's edges: the matches are the whole-text search's.
 */
import { PAUSE, SLICE_POSITIONS, sliceBudget, type SliceBudget, type Sliced } from "./slices";
import { keepShape } from "./kept-shapes";

// The budget lives in ./slices.ts (the decoding passes, which may not import this file, use it
// too); the spelled-out readings import it from here.
export { sliceBudget, type SliceBudget } from "./slices";

/** Characters a window starts a match in. */
export const WINDOW = 4_096;
/** What a window's call sees past its end: the longest match a pattern here may have. */
export const OVERLAP = 256;

/**
 * How many characters a native search looks at for one position of the slice budget
 * (../slices.ts counts positions tried from JavaScript, ~90 ns each on an idle core). A window is
 * searched at 1–4 ns a character, 30 at worst (Morse's lead over 4 MB of `-.-.`), so a slice of
 * windows stays within a slice's time, and a body that is only searched (no view made) does not
 * pause as often as one that is decoded: a pause is a macrotask, and the forced collections of
 * a large body are counted in pauses (../../request/large-body-collection.ts). Charged one for
 * one, the octal lead's windows alone tripled the pauses of test/e2e/heavy-bodies.mjs's body.
 */
export const CHARACTERS_PER_POSITION = 8;

/**
 * One pattern's matches in one text, in order, found window by window.
 */
export class WindowedSearch {
  /** Where the next match may start at the earliest (the caller moves it past what it read). */
  from = 0;
  private readonly pattern: RegExp;
  private readonly sticky: RegExp;
  private window = "";
  private windowStart = 0;
  private windowEnd = -1;

  /**
   * @param pattern - a pattern matching at most `overlap` characters (its flags are kept, `g`
   *   added)
   * @param text - the text searched
   * @param budget - the slice budget of the pass the search belongs to (charged per window)
   * @param overlap - what each window's call sees past its end: the pattern's longest match
   */
  constructor(
    pattern: RegExp,
    private readonly text: string,
    private readonly budget: SliceBudget = sliceBudget(),
    private readonly overlap = OVERLAP,
  ) {
    const flags = pattern.flags.replace(/[gy]/g, "");
    this.pattern = new RegExp(pattern.source, `${flags}g`);
    this.sticky = new RegExp(pattern.source, `${flags}y`);
  }

  /** The next match at or after {@link WindowedSearch.from} (its index in the whole text), or null. */
  *next(): Sliced<RegExpExecArray | null> {
    const { text } = this;
    for (;;) {
      if (this.from >= text.length) return null;
      if (this.from < this.windowStart || this.from >= this.windowEnd) {
        this.windowStart = this.from;
        this.windowEnd = Math.min(text.length, this.from + WINDOW);
        // A slice of a flat string is a view of it in V8, not a copy.
        this.window = text.slice(
          this.windowStart,
          Math.min(text.length, this.windowEnd + this.overlap),
        );
        // Whole positions: a fraction made every budget's `left` a double (a text's last window
        // is of any length), and V8 then boxes it at every read outside optimized code: two
        // heap numbers per character of every per-character pass (bench/README.md, "Random
        // bytes: the redaction's garbage").
        this.budget.left -= Math.ceil(
          (this.windowEnd - this.windowStart) / CHARACTERS_PER_POSITION,
        );
        if (this.budget.left <= 0) {
          this.budget.left = SLICE_POSITIONS;
          yield PAUSE;
        }
      }
      this.pattern.lastIndex = this.from - this.windowStart;
      const found = this.pattern.exec(this.window);
      const at = found ? found.index + this.windowStart : -1;
      if (found && at < this.windowEnd) {
        this.sticky.lastIndex = at;
        const exact = this.sticky.exec(text);
        this.from = at + 1;
        if (exact) return exact;
        continue;
      }
      // No match starts in this window: the next one starts where it ends.
      this.from = this.windowEnd;
    }
  }
}

// One instance for the isolate's life, so optimized code that checks this class's map survives
// full collections (./kept-shapes.ts).
keepShape(new WindowedSearch(/x/, ""));

/**
 * Whether the pattern matches somewhere in the text, searched in windows.
 * @param pattern - as for {@link WindowedSearch}
 * @param text - the text
 * @param budget - the pass's slice budget
 */
export function* holds(pattern: RegExp, text: string, budget?: SliceBudget): Sliced<boolean> {
  return (yield* new WindowedSearch(pattern, text, budget).next()) !== null;
}
