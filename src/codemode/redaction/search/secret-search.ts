/**
 * Finding a fixed set of secrets and cutting them out: the search behind every method of a
 * `Redactor` (../redaction.ts tells what is found and what is not). A text is searched as it is
 * and in its decoded views (../decoding/decoded-views.ts) for the literal forms of each secret
 * (./secret-forms.ts), with one scanner for all forms (./form-scanner.ts); what is found is cut
 * out of the original and the text searched again, for at most {@link MAX_ROUNDS} rounds.
 * Bytes are searched one character per byte, so a secret's UTF-8, UTF-16 and UTF-32 forms are
 * found at any offset.
 */
import { decodedViewsInSlices, MAX_SWALLOWED, utf8ViewsInSlices } from "../decoding/decoded-views";
import { inertCharacter } from "../decoding/changed-segments";
import {
  inertControl,
  longStretchesInSlices,
  type LongStretches,
} from "../decoding/long-stretches";
import { utf8BytesViewInSlices } from "../decoding/utf8-bytes-view";
import {
  PAUSE,
  runInSlices,
  runToEnd,
  SLICE_POSITIONS,
  sliceBudget,
  type SliceBudget,
  type Sliced,
} from "../slices";
import type { View } from "../view-builder";
import { formScanner, GRAM, windowKey, type FormScanner } from "./form-scanner";
import { FoundPairs, mergedRanges } from "./found-ranges";
import { cutBytes, cutText } from "./marker";
import { byteView, fromLatin1, utf8 } from "../byte-text";
import { secretForms } from "./secret-forms";

/** Rounds of cutting before a text that still holds a secret is given up on. */
export const MAX_ROUNDS = 3;

/** The search for one set of secrets, built once by {@link secretSearch}. */
export interface SecretSearch {
  /** The text with every secret cut out, or undefined when one survives {@link MAX_ROUNDS}. */
  cleanText(value: string): string | undefined;
  /**
   * The bytes with every secret cut out (the same array when clean), or undefined when one
   * survives {@link MAX_ROUNDS}.
   * @param value - the bytes
   * @param view - the bytes one character per byte, when the caller has them already
   * @param readAsUtf8 - whether bytes holding UTF-8 multi-byte sequences are also read as UTF-8
   *   (../decoding/utf8-bytes-view.ts); false only for bytes that are well-formed UTF-8 and are
   *   decoded as UTF-8 and searched as that text afterwards (a UTF-8 text answer): that text is
   *   their reading, so reading them here too only doubled the work
   */
  cleanBytes(value: Uint8Array, view?: string, readAsUtf8?: boolean): Uint8Array | undefined;
  /**
   * {@link SecretSearch.cleanText} in bounded slices (../slices.ts): the same answer, with the
   * thread given away (`pause`) between slices, for bodies too large to hold it for.
   * @param value - the text
   * @param pause - what a pause does (a macrotask by default)
   */
  cleanTextInSlices(value: string, pause?: () => Promise<void>): Promise<string | undefined>;
  /**
   * {@link SecretSearch.cleanBytes} in bounded slices (../slices.ts): the same answer.
   * @param value - the bytes
   * @param view - the bytes one character per byte, when the caller has them already
   * @param pause - what a pause does (a macrotask by default)
   * @param readAsUtf8 - as for {@link SecretSearch.cleanBytes}
   */
  cleanBytesInSlices(
    value: Uint8Array,
    view?: string,
    pause?: () => Promise<void>,
    readAsUtf8?: boolean,
  ): Promise<Uint8Array | undefined>;
  /**
   * {@link SecretSearch.cleanBytesInSlices} for bytes that are all ASCII, given as their text
   * (one character per byte) so the caller need not hold the bytes too: the same text when
   * clean, the bytes with every secret cut out, or undefined.
   * @param text - the bytes as ASCII text
   * @param pause - what a pause does (a macrotask by default)
   */
  cleanAsciiBytesInSlices(
    text: string,
    pause?: () => Promise<void>,
  ): Promise<string | Uint8Array | undefined>;
}

/**
 * Compiles the search for a list of secrets (non-empty, distinct).
 * @param secrets - the secrets to find
 */
export function secretSearch(secrets: readonly string[]): SecretSearch {
  const forms = secrets.flatMap(secretForms);
  const textScanner = formScanner(forms);
  const byteScanner = formScanner(byteForms(forms));
  const mayHideCopy = swallowedCopyCheck(forms);
  const held = heldCharacters([...forms, ...byteForms(forms)]);
  const inert = (code: number) => inertCharacter(code) && !held.has(code);
  // Where the cut of bytes to their long stretches ends a stretch: an inert character, or a
  // control character no reading reads (../decoding/long-stretches.ts), in no form.
  const stretchEnd = (code: number) => inert(code) || (inertControl(code) && !held.has(code));
  // The UTF-8 reading of bytes may skip what the byte search read only when the forms it is
  // searched for are the bytes' forms (ASCII).
  const asciiForms = forms.every((form) => !/[^\0-\x7f]/.test(form));
  // The shortest form (of text and of bytes: the same when all are ASCII), for the cut of bytes
  // to the stretches that may hold one (../decoding/long-stretches.ts).
  const shortest = Math.min(...forms.map((form) => form.length));

  const textRounds = (value: string): Sliced<string | undefined> =>
    cleanRounds(value, (text, budget) => find(text, textScanner, mayHideCopy, inert, budget));
  // `value` as an ASCII text stands for its own bytes (one byte per character): they are made
  // only when something is cut, so a clean body's bytes need not be held while it is searched.
  function* byteRounds<T extends Uint8Array | string>(
    value: T,
    view?: string,
    readAsUtf8 = true,
  ): Sliced<T | Uint8Array | undefined> {
    if (value.length === 0) return value;
    const budget = sliceBudget();
    let current: T | Uint8Array = value;
    for (let round = 0; round <= MAX_ROUNDS; round++) {
      // The bytes one character per byte: made below only when the whole is searched (the cut to
      // the long stretches reads the bytes, and makes the view of what it keeps only).
      let shown: string | undefined =
        typeof current === "string"
          ? current
          : round === 0 && view?.length === current.byteLength
            ? view
            : undefined;
      // Bytes (not an ASCII text) may hold UTF-8 of characters beyond Latin-1: read as text too,
      // unless the caller searches that very text afterwards.
      const asText =
        typeof current === "string" || !readAsUtf8
          ? undefined
          : {
              bytes: current as Uint8Array,
              scanner: textScanner,
              inert: asciiForms ? inert : undefined,
            };
      // Bytes with forms all ASCII: only the stretches that may hold a form are searched
      // (../decoding/long-stretches.ts says why nothing found in the whole is lost).
      const cut: LongStretches | undefined =
        typeof current !== "string" && asciiForms
          ? yield* longStretchesInSlices(current as Uint8Array, stretchEnd, shortest)
          : undefined;
      // The cut's text is the view of the stretches alone: the whole view (two bytes a character
      // for bytes beyond windows-1252's Latin-1 part, 8 MB for 4 MiB of random bytes, and as much
      // again of pieces while it is made) is not made, nor a caller's held, while they are
      // searched, as it is not read this round (issue #40: the host's memory; bench/README.md,
      // "Random-byte bodies in the real host").
      if (cut) shown = undefined;
      const ranges: number[] = cut
        ? yield* findInStretches(cut, byteScanner, mayHideCopy, inert, budget, asText)
        : yield* find(
            (shown ??= byteView(current as Uint8Array)),
            byteScanner,
            mayHideCopy,
            inert,
            budget,
            asText,
          );
      if (ranges.length === 0) return current;
      if (round === MAX_ROUNDS) return undefined;
      current = yield* cutBytes(
        typeof current === "string" ? fromLatin1(current) : current,
        ranges,
        budget,
      );
    }
    return undefined;
  }
  return {
    cleanText: (value) => runToEnd(textRounds(value)),
    cleanBytes: (value, view, readAsUtf8) => runToEnd(byteRounds(value, view, readAsUtf8)),
    cleanTextInSlices: (value, pause) => runInSlices(textRounds(value), pause),
    cleanBytesInSlices: (value, view, pause, readAsUtf8) =>
      runInSlices(byteRounds(value, view, readAsUtf8), pause),
    cleanAsciiBytesInSlices: (text, pause) => runInSlices(byteRounds(text), pause),
  };
}

/**
 * The forms to look for in bytes read one character per byte: each form as its UTF-8 bytes, and
 * a form that is already one character per byte (a secret's UTF-8 or UTF-16 read as Latin-1) as
 * itself.
 */
function byteForms(forms: readonly string[]): string[] {
  return forms.flatMap((form) =>
    /[^\0-\x7f]/.test(form)
      ? [byteView(utf8(form)), ...(/[^\0-\xff]/.test(form) ? [] : [byteView(fromLatin1(form))])]
      : [form],
  );
}

/**
 * The characters some form holds: no other is inert (../decoding/changed-segments.ts).
 * @param forms - every form searched (of text and of bytes)
 */
function heldCharacters(forms: readonly string[]): Set<number> {
  const held = new Set<number>();
  for (const form of forms) for (let i = 0; i < form.length; i++) held.add(form.charCodeAt(i));
  return held;
}

/**
 * Whether a decoded view may hide a copy whose first characters a decoded sequence swallowed
 * (see decodedViews): true when what follows a changed sequence is the first GRAM characters of
 * the rest of some form (after its first 1–MAX_SWALLOWED characters). A rest shorter than that
 * (a copy of an 8-character secret that lost 5 or more) is not looked for: common two- and
 * three-letter texts would make every view suspect; docs/security.md lists it.
 */
function swallowedCopyCheck(forms: readonly string[]): (view: View) => Sliced<boolean> {
  const rests = new Set(
    forms.flatMap((form) =>
      Array.from({ length: MAX_SWALLOWED }, (_, k) => fold(form.slice(k + 1, k + 1 + GRAM))),
    ),
  );
  // The same as window keys (one per decoded sequence of a view: a string per sequence cost 7%
  // of an ordinary body's redaction). Keys fold more than case, so they only add candidates.
  const restKeys = new Set([...rests].filter((r) => r.length === GRAM).map((r) => windowKey(r, 0)));
  // A bit per hash slot in front of the set: a flood of sequences (`%2541` repeated, 800,000 a
  // view) asked the set once each, 10% of that body's redaction; most keys miss the bits.
  const bits = new Uint32Array(1 << (REST_BITS - 5));
  const slot = (key: number) => Math.imul(key, 0x9e3779b1) >>> (32 - REST_BITS);
  for (const key of restKeys) bits[slot(key) >>> 5]! |= 1 << (slot(key) & 31);
  // A sliced pass: a step of a flood of escapes replaced a million sequences.
  return function* (view: View) {
    const { changed, text } = view;
    if (!changed) return false;
    let budget = SLICE_POSITIONS;
    for (let t = 0; t < changed.count; t++) {
      if (--budget <= 0) {
        budget = SLICE_POSITIONS;
        yield PAUSE;
      }
      const end = changed.outStart(t) + changed.outLength(t);
      if (end + GRAM <= text.length) {
        const key = windowKey(text, end);
        const at = slot(key);
        if ((bits[at >>> 5]! & (1 << (at & 31))) !== 0 && restKeys.has(key)) return true;
      } else if (rests.has(fold(text.slice(end)))) return true;
    }
    return false;
  };
}

/** Hash bits of the swallowed-copy check's filter (a few hundred keys in 65,536 slots). */
const REST_BITS = 16;

/** ASCII letters in lower case (as the scanner compares). */
const fold = (text: string) => text.replace(/[A-Z]+/g, (s) => s.toLowerCase());

/**
 * What mapping one find back to the original costs in slice positions (../slices.ts): two
 * lookups in each map of its view's chain (a search of checkpoints, then up to 32 records), about
 * as long as a decoding step takes for {@link MAP_COST} positions.
 */
export const MAP_COST = 16;

/**
 * Characters the scan looks at for one position of the slice budget: it takes one window every
 * few characters (the shortest form less three: 5 for an 8-character secret) and looks it up in
 * a bit set, a few nanoseconds each, against ~90 a position (../slices.ts). Charged one for one,
 * a copy-free 4 MiB body paused 572 times instead of 344 (each pause a macrotask, and the forced
 * collections of a large body are counted in pauses: ../../request/large-body-collection.ts).
 */
export const SCAN_CHARS_PER_POSITION = 16;

/**
 * Work the scan of views did since the isolate started: characters scanned and copies mapped
 * back through their view's maps. Counts that do not depend on the machine, so a test can bound
 * the work between two pauses.
 */
export const scanWork = { positions: 0, copies: 0 };

/**
 * Every place a secret is found in the text or one of its decoded views, merged, in order, as
 * start and end pairs; a sliced pass that pauses as the scan of the views, the mapping of what
 * they find and the merge spend `budget`.
 * @param text - the text, or bytes one character per byte
 * @param scanner - the forms to look for in it
 * @param mayHideCopy - see {@link swallowedCopyCheck}
 * @param inert - see {@link inertOutsideForms}
 * @param budget - the slice budget of the rounds
 * @param asText - for bytes: the bytes themselves, and the forms of text; when they hold UTF-8
 *   multi-byte sequences, their UTF-8 reading (../decoding/utf8-bytes-view.ts) and the views of
 *   it that look past ASCII are searched for those forms too, as in a text body (`inert` when
 *   its unchanged parts need no reading again)
 * @param everyReading - for bytes cut to their long stretches (see {@link findInStretches})
 */
function* find(
  text: string,
  scanner: FormScanner,
  mayHideCopy: (view: View) => Sliced<boolean>,
  inert: (code: number) => boolean,
  budget: SliceBudget,
  asText?: { bytes: Uint8Array; scanner: FormScanner; inert?: (code: number) => boolean },
  everyReading = false,
): Sliced<number[]> {
  const found = new FoundPairs();
  yield* scanViews(
    decodedViewsInSlices(text, mayHideCopy, 0, inert, everyReading),
    scanner,
    found,
    budget,
  );
  if (asText) {
    const read = yield* utf8BytesViewInSlices(asText.bytes, text);
    if (read)
      yield* scanViews(
        utf8ViewsInSlices(read, asText.inert, everyReading),
        asText.scanner,
        found,
        budget,
      );
  }
  return yield* mergedRanges(found, text.length, budget);
}

/**
 * {@link find} over bytes cut to their long stretches: every view made of the stretches' text
 * (and their UTF-8 reading of their bytes), with every reading a look over a whole view decides
 * made (`everyReading`), each find mapped back to the bytes (in slices, like the finds of views).
 */
function* findInStretches(
  cut: LongStretches,
  scanner: FormScanner,
  mayHideCopy: (view: View) => Sliced<boolean>,
  inert: (code: number) => boolean,
  budget: SliceBudget,
  asText?: { bytes: Uint8Array; scanner: FormScanner; inert?: (code: number) => boolean },
): Sliced<number[]> {
  const { view, bytes } = cut;
  const ranges = yield* find(
    view.text,
    scanner,
    mayHideCopy,
    inert,
    budget,
    asText && { ...asText, bytes },
    true,
  );
  const origin = view.origin!;
  for (let k = 0; k < ranges.length; k += 2) {
    ranges[k] = origin(ranges[k]!, false);
    ranges[k + 1] = origin(ranges[k + 1]!, true);
    scanWork.copies++;
    if ((budget.left -= MAP_COST) <= 0) {
      budget.left = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return ranges;
}

/**
 * Scans each view for the scanner's forms, adding where each find lies in the original to
 * `found` (start and end pairs). A sliced pass: a view is scanned in spans of what `budget` has
 * left (a position per {@link SCAN_CHARS_PER_POSITION} characters), each find mapped back at
 * {@link MAP_COST} positions, and the views' own pauses set the budget back. The mapping was
 * not sliced: a body full of copies of a secret (4 MiB of it, or a tag view that spells it at
 * every position) had hundreds of thousands mapped between two pauses, 1.8–2.1 s of the host
 * thread at load ~6 (issue #40).
 */
function* scanViews(
  views: Generator<View | typeof PAUSE>,
  scanner: FormScanner,
  found: FoundPairs,
  budget: SliceBudget,
): Sliced<void> {
  const span: number[] = [];
  // Characters of the views met since the last pause. Views are made by passes that count their
  // own turns, so a pass's last turn and the next pass's first would run together: as before
  // the scan was sliced, a pause follows views that add up to a slice of characters.
  let viewed = 0;
  for (const view of views) {
    if (view === PAUSE) {
      budget.left = SLICE_POSITIONS;
      viewed = 0;
      yield PAUSE;
      continue;
    }
    const { text, origin } = view;
    for (let from = 0; from < text.length;) {
      const to = Math.min(
        text.length,
        from + Math.max(GRAM, Math.ceil(budget.left * SCAN_CHARS_PER_POSITION)),
      );
      span.length = 0;
      scanner.scanSpan(text, from, to, span);
      scanWork.positions += (to - from) / SCAN_CHARS_PER_POSITION;
      budget.left -= (to - from) / SCAN_CHARS_PER_POSITION;
      from = to;
      if (origin)
        for (let k = 0; k < span.length; k += 2) {
          found.add(origin(span[k]!, false), origin(span[k + 1]!, true));
          scanWork.copies++;
          if ((budget.left -= MAP_COST) <= 0) {
            budget.left = SLICE_POSITIONS;
            viewed = 0;
            yield PAUSE;
          }
        }
      else {
        // Found in the text itself: nothing to map, a compare and an add each.
        for (let k = 0; k < span.length; k += 2) found.add(span[k]!, span[k + 1]!);
        scanWork.positions += span.length / 2;
        budget.left -= span.length / 2;
      }
      if (budget.left <= 0) {
        budget.left = SLICE_POSITIONS;
        viewed = 0;
        yield PAUSE;
      }
    }
    viewed += view.text.length;
    if (viewed >= SLICE_POSITIONS) {
      budget.left = SLICE_POSITIONS;
      viewed = 0;
      yield PAUSE;
    }
  }
}

/** Cuts and re-checks until nothing is found; undefined when a secret survives the rounds. */
function* cleanRounds(
  value: string,
  search: (text: string, budget: SliceBudget) => Sliced<number[]>,
): Sliced<string | undefined> {
  const budget = sliceBudget();
  let current = value;
  for (let round = 0; round <= MAX_ROUNDS; round++) {
    const ranges = yield* search(current, budget);
    if (ranges.length === 0) return current;
    if (round === MAX_ROUNDS) return undefined;
    current = yield* cutText(current, ranges, budget);
  }
  return undefined;
}
