/**
 * The run-decoded view: long runs of base64, base64url, hex, base32 or base32hex that decode to text, as
 * that text. Run encodings are otherwise found only as literal forms (../search/secret-forms.ts),
 * two layers deep; a third layer under a run encoding (base64 of base64 of `%XX`, hex of base64 of
 * `&#…;`, base64 of a decimal list of UTF-16 bytes) multiplied the forms past what a redactor can
 * build (4,900 more per secret: a redactor built in 4× the time). Decoding the outer run instead
 * leaves two layers, which every view of ./decoded-views.ts reads: the decoded runs are searched
 * as a text of their own, in all of them (a third decoding of a run encoding, base64 of base64 of
 * base64 of `%XX`, as a run-decoded view of this one).
 *
 * Which runs (what keeps an ordinary body's cost to one pass): at least {@link MIN_RUN} characters
 * of one alphabet, line breaks and `\n`, `\r` escapes between them skipped (base64 in lines,
 * also inside a JSON string); a run is decoded only when a sample of its decoding at its start or
 * at its end is text (at least 85 % of the bytes printable ASCII), at the alignment that makes
 * it so: a run that an API glued onto other letters of its alphabet reads at its end. Random
 * data, hashes, a base64 image and prose decode to bytes that are not text: the cost is two
 * samples per run. A run whose decoding begins and ends with bytes other than text (a copy in
 * the middle of a binary blob) is not read; docs/security.md says so. The codecs and the samples
 * are ./run-codecs.ts; a run cut into pieces joined by spaces is read whole too (./cut-runs.ts).
 *
 * A copy found in the view is cut out of its run where the characters holding its bytes are
 * (./run-characters.ts keeps where they lie).
 */
import { PAUSE, sliceBudget, SLICE_POSITIONS, type SliceBudget, type Sliced } from "../slices";
import { keepShape } from "../kept-shapes";
import type { Origin } from "../sequence-map";
import type { View } from "../view-builder";
import { CutRuns, type RunReader } from "./cut-runs";
import {
  characterAt,
  escapeLetter,
  firstCharacters,
  lastCharacters,
  runCharactersInSlices,
  runWork,
  separatorAt,
  type RunCharacters,
} from "./run-characters";
import {
  BASE64,
  CLASSES,
  CODECS,
  codecFits,
  decodeInSlices,
  KEPT,
  SAMPLE,
  textAlignment,
  type Codec,
  type RunReading,
} from "./run-codecs";

/**
 * Fewest characters of a run decoded: an 8-character secret's three-layer forms (base64 of base64
 * of base64: 24 characters; hex of base64 of base64, base64 of hex of base64: 32) are longer.
 */
export const MIN_RUN = 20;

/**
 * The view of the runs of a text that decode to text, the decoded runs one per line, or
 * undefined when there are none: a sliced pass (../slices.ts), one look per character.
 * @param view - a text (the body, or its bytes one character per byte) and its map
 */
export function* runDecodedViewInSlices(view: View): Sliced<View | undefined> {
  const { text } = view;
  const n = text.length;
  const budget = sliceBudget();
  const runs = new DecodedRuns(text, budget);
  const cuts = new CutRuns(text);
  // `i` is always 0 or just past a character that ends runs, so a run starts at `i` or later.
  let i = 0;
  while (i + MIN_RUN <= n) {
    // A run of MIN_RUN characters starting at `i` would cover `i + MIN_RUN - 1`: look back from
    // there for a character that ends runs; one found lets the search go on past it, so an
    // ordinary text is looked at a few characters per MIN_RUN, not at every character. The
    // alphabets of the characters looked at are kept for a run found (a hash or id in a JSON list
    // was looked at four times per character, and their count was most of its cost).
    let [back, classes, count] = [i + MIN_RUN - 1, 0xff, 0];
    for (; back >= i; back--) {
      const d = text.charCodeAt(back);
      if (d < 128 && (CLASSES[d]! & BASE64) !== 0) {
        if (escapeLetter(text, back)) continue;
        classes &= CLASSES[d]!;
        count++;
      } else if (separatorAt(text, back) === 0) break;
    }
    budget.left -= i + MIN_RUN - back;
    if (budget.left <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    if (back >= i) {
      i = back + 1;
      continue;
    }
    // A run: its characters (line breaks skipped), the alphabets all of them belong to,
    // read on to its end, a slice at a time (a run can be the whole body).
    const start = i;
    let end = i + MIN_RUN;
    for (;;) {
      const [from, stop] = [end, Math.min(n, end + Math.max(1, budget.left))];
      for (; end < stop; end++) {
        const d = text.charCodeAt(end);
        if (d < 128 && (CLASSES[d]! & BASE64) !== 0) {
          if (escapeLetter(text, end)) continue;
          classes &= CLASSES[d]!;
          count++;
        } else if (separatorAt(text, end) === 0) break;
      }
      budget.left -= end - from;
      runWork.positions += end - from;
      if (end < stop || end >= n) break;
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
    i = end + 1;
    if (count < MIN_RUN) continue;
    const reading = yield* runs.read(start, end, count, classes, cuts.heldTest(start, end));
    // The run may be the first piece of a cut run (./cut-runs.ts): read whole too.
    yield* cuts.readWhole(runs, start, end, count, classes, reading, budget);
  }
  return runs.view(view.origin);
}

/** A decoded run: its characters, where each line of them lies, what it decoded to and how. */
interface Segment {
  /** How many characters the run has, line breaks left out. */
  readonly characters: number;
  /** Where every 256th character of the run (from its first) lies (./run-characters.ts). */
  readonly checkpoints: Int32Array;
  /** Where its decoding starts in the view, and its length. */
  readonly viewStart: number;
  readonly length: number;
  /** Characters of the run skipped before its first group (its alignment). */
  readonly k: number;
  readonly codec: Codec;
}

/** The runs of a text read so far: their decodings, one per line, and where they came from. */
class DecodedRuns implements RunReader {
  private readonly segments: Segment[] = [];
  private readonly decoded: string[] = [];
  /** The view's length so far, a line break after each decoding. */
  private length = 0;
  /**
   * The first {@link KEPT} characters of the run being looked at, and its last (at the end):
   * this pass's own, not the module's, since they are sought in slices and another request's
   * pass runs at every pause (shared buffers let it overwrite them between the seeking and the
   * samples' reading).
   */
  private readonly head = new Uint8Array(KEPT);
  private readonly tail = new Uint8Array(KEPT);

  /**
   * @param text - the text whose runs are read
   * @param budget - the pass's slice budget, charged for each run decoded
   */
  constructor(
    private readonly text: string,
    private readonly budget: SliceBudget,
  ) {}

  /**
   * Decodes the run in `[start, end)` (`count` characters of the alphabets `classes`) with the
   * first codec that reads it as text, as a segment of the view; its reading, or undefined when
   * no codec reads it or `held` says its bytes are read already.
   */
  *read(
    start: number,
    end: number,
    count: number,
    classes: number,
    held?: (codec: Codec, k: number) => boolean,
  ): Sliced<RunReading | undefined> {
    const { text, budget, head, tail } = this;
    yield* firstCharacters(text, start, end, head, budget);
    // A run no longer than a sample has no end sample of its own (textAlignment).
    const kept = count > SAMPLE ? yield* lastCharacters(text, start, end, tail, budget) : 0;
    let run: RunCharacters | undefined;
    for (const codec of CODECS) {
      if (!codecFits(codec, classes)) continue;
      const k = textAlignment(codec, head, tail, kept, count);
      if (k < 0) continue;
      if (held?.(codec, k)) return undefined;
      // Copied and decoded in slices: a run can be the whole body.
      run ??= yield* runCharactersInSlices(text, start, end, budget);
      let bytes: string;
      try {
        bytes = yield* decodeInSlices(codec, run.content, k, budget, runWork);
      } catch {
        continue;
      }
      // The run's characters are let go: the map keeps their count and where some of them are.
      const { checkpoints } = run;
      const characters = run.content.length;
      this.segments.push({
        characters,
        checkpoints,
        viewStart: this.length,
        length: bytes.length,
        k,
        codec,
      });
      this.decoded.push(bytes);
      this.length += bytes.length + 1;
      return { codec, k };
    }
    return undefined;
  }

  dropBeforeLast(): void {
    const { segments, decoded } = this;
    const at = decoded.length - 2;
    const removed = decoded[at]!.length + 1;
    decoded.splice(at, 1);
    segments.splice(at, 1);
    segments[at] = { ...segments[at]!, viewStart: segments[at]!.viewStart - removed };
    this.length -= removed;
  }

  /**
   * The view of the runs read, or undefined when none was.
   * @param outer - the map of the text the runs lie in
   */
  view(outer: Origin | null | undefined): View | undefined {
    const { text, segments, decoded } = this;
    if (decoded.length === 0) return undefined;
    const local: Origin = (at, isEnd) => segmentOrigin(text, segments, at, isEnd);
    return {
      text: decoded.join("\n"),
      origin: outer ? (at, isEnd) => outer(local(at, isEnd), isEnd) : local,
    };
  }
}

// One instance for the isolate's life, so optimized code that checks this class's map survives
// full collections (../kept-shapes.ts).
keepShape(new DecodedRuns("", sliceBudget()));

/**
 * Where position `at` of the view lies in the text: the characters of the run that hold the
 * decoded bytes' bits (a start rounds down, an end up), so a copy is cut out of its run alone.
 */
function segmentOrigin(
  text: string,
  segments: readonly Segment[],
  at: number,
  isEnd: boolean,
): number {
  let [lo, hi] = [0, segments.length - 1];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segments[mid]!.viewStart <= at) lo = mid;
    else hi = mid - 1;
  }
  const segment = segments[lo]!;
  const { codec, characters, checkpoints } = segment;
  const byte = Math.max(0, Math.min(at - segment.viewStart, segment.length));
  const scaled = (byte * codec.group) / codec.bytes;
  const c = Math.min(characters, segment.k + (isEnd ? Math.ceil(scaled) : Math.floor(scaled)));
  // An end is just past the character before it (an end at a line's start stays on the line
  // before), a start at its character; past the run's last character, just past that one.
  if (isEnd ? c === 0 : c < characters) return characterAt(text, checkpoints, c);
  return characterAt(text, checkpoints, c - 1) + 1;
}
