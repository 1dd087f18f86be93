/**
 * Finding a fixed set of secrets and cutting them out: the search behind every method of a
 * `Redactor` (../redaction.ts tells what is found and what is not). A text is searched as it is
 * and in its decoded views (../decoding/decoded-views.ts) for the literal forms of each secret
 * (./secret-forms.ts), with one scanner for all forms (./form-scanner.ts); what is found is cut
 * out of the original and the text searched again, for at most {@link MAX_ROUNDS} rounds.
 * Bytes are searched one character per byte, so a secret's UTF-8, UTF-16 and UTF-32 forms are
 * found at any offset.
 */
import {
  decodedViewsInSlices,
  MAX_SWALLOWED,
  originalRange,
  utf8ViewsInSlices,
} from "../decoding/decoded-views";
import { inertCharacter } from "../decoding/changed-segments";
import {
  inertControl,
  longStretchesInSlices,
  type LongStretches,
} from "../decoding/long-stretches";
import { utf8BytesViewInSlices } from "../decoding/utf8-bytes-view";
import { PAUSE, runInSlices, runToEnd, SLICE_POSITIONS, type Sliced } from "../slices";
import type { View } from "../view-builder";
import { formScanner, GRAM, windowKey, type FormScanner, type Range } from "./form-scanner";
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
    cleanRounds(value, (text) => find(text, textScanner, mayHideCopy, inert), cutText);
  // `value` as an ASCII text stands for its own bytes (one byte per character): they are made
  // only when something is cut, so a clean body's bytes need not be held while it is searched.
  function* byteRounds<T extends Uint8Array | string>(
    value: T,
    view?: string,
    readAsUtf8 = true,
  ): Sliced<T | Uint8Array | undefined> {
    if (value.length === 0) return value;
    let current: T | Uint8Array = value;
    for (let round = 0; round <= MAX_ROUNDS; round++) {
      let shown: string | undefined =
        typeof current === "string"
          ? current
          : round === 0 && view?.length === current.byteLength
            ? view
            : byteView(current);
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
      const cut =
        typeof current !== "string" && asciiForms
          ? yield* longStretchesInSlices(current as Uint8Array, shown, stretchEnd, shortest)
          : undefined;
      // The cut's text is a copy of the stretches: the whole view (two bytes a character for
      // bytes beyond windows-1252's Latin-1 part, 8 MB for 4 MiB of random bytes) is let go
      // while they are searched, as it is not read again this round (issue #40: the host's
      // memory; bench/README.md, "Random-byte bodies in the real host").
      if (cut) shown = undefined;
      const ranges = cut
        ? yield* findInStretches(cut, byteScanner, mayHideCopy, inert, asText)
        : yield* find(shown!, byteScanner, mayHideCopy, inert, asText);
      if (ranges.length === 0) return current;
      if (round === MAX_ROUNDS) return undefined;
      current = cutBytes(typeof current === "string" ? fromLatin1(current) : current, ranges);
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
 * Every place a secret is found in the text or one of its decoded views, merged, in order; a
 * sliced pass that also pauses after views whose texts add up to {@link SLICE_POSITIONS}.
 * @param text - the text, or bytes one character per byte
 * @param scanner - the forms to look for in it
 * @param mayHideCopy - see {@link swallowedCopyCheck}
 * @param inert - see {@link inertOutsideForms}
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
  asText?: { bytes: Uint8Array; scanner: FormScanner; inert?: (code: number) => boolean },
  everyReading = false,
): Sliced<Range[]> {
  const ranges: [number, number][] = [];
  yield* scanViews(
    decodedViewsInSlices(text, mayHideCopy, 0, inert, everyReading),
    scanner,
    ranges,
  );
  if (asText) {
    const read = yield* utf8BytesViewInSlices(asText.bytes, text);
    if (read)
      yield* scanViews(utf8ViewsInSlices(read, asText.inert, everyReading), asText.scanner, ranges);
  }
  if (ranges.length < 2) return ranges;
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [ranges[0]!];
  for (const [start, end] of ranges.slice(1)) {
    const last = merged[merged.length - 1]!;
    if (start < last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/**
 * {@link find} over bytes cut to their long stretches: every view made of the stretches' text
 * (and their UTF-8 reading of their bytes), with every reading a look over a whole view decides
 * made (`everyReading`), each find mapped back to the bytes.
 */
function* findInStretches(
  cut: LongStretches,
  scanner: FormScanner,
  mayHideCopy: (view: View) => Sliced<boolean>,
  inert: (code: number) => boolean,
  asText?: { bytes: Uint8Array; scanner: FormScanner; inert?: (code: number) => boolean },
): Sliced<Range[]> {
  const { view, bytes } = cut;
  const ranges = yield* find(
    view.text,
    scanner,
    mayHideCopy,
    inert,
    asText && { ...asText, bytes },
    true,
  );
  const origin = view.origin!;
  return ranges.map(([start, end]) => [origin(start, false), origin(end, true)] as const);
}

/**
 * Scans each view for the scanner's forms, adding where each find lies in the original to
 * `ranges`; pauses with the views, and after views whose texts add up to {@link SLICE_POSITIONS}.
 */
function* scanViews(
  views: Generator<View | typeof PAUSE>,
  scanner: FormScanner,
  ranges: [number, number][],
): Sliced<void> {
  let work = 0;
  for (const view of views) {
    if (view === PAUSE) {
      work = 0;
      yield PAUSE;
      continue;
    }
    for (const [start, end] of scanner.scan(view.text))
      ranges.push(originalRange(view, start, end));
    work += view.text.length;
    if (work >= SLICE_POSITIONS) {
      work = 0;
      yield PAUSE;
    }
  }
}

/** Cuts and re-checks until nothing is found; undefined when a secret survives the rounds. */
function* cleanRounds(
  value: string,
  search: (text: string) => Sliced<Range[]>,
  cutOut: (text: string, ranges: Range[]) => string,
): Sliced<string | undefined> {
  let current = value;
  for (let round = 0; round <= MAX_ROUNDS; round++) {
    const ranges = yield* search(current);
    if (ranges.length === 0) return current;
    if (round === MAX_ROUNDS) return undefined;
    current = cutOut(current, ranges);
  }
  return undefined;
}
