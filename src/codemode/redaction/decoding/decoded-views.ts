/**
 * The views a text is searched in, one at a time: the text, its NUL-free view
 * (./nul-free-view.ts), up to three decoding steps from each (./decode-step.ts), the spelled-out
 * readings of all of these and the steps after them (./spelled-views.ts), and the text's own
 * dumps, ROT13 and byte-swapped UTF-16 (../spellings/). For every character of a view, its map tells where it came
 * from in the original, so a secret found in a view is cut out of the original exactly where its
 * encoded form was.
 */
import { dumpBytesViewInSlices, dumpTextViewInSlices } from "../spellings/dump-views";
import { rot13ViewInSlices } from "../spellings/rot13-view";
import { swappedUtf16ViewInSlices } from "../spellings/swapped-utf16-view";
import { PAUSE, type Pause, type Sliced } from "../slices";
import { compose, type View } from "../view-builder";
import { ALL_FAMILIES, decodeSteps, FAMILIES } from "./decode-step";
import { changedSegmentsInSlices } from "./changed-segments";
import { withoutNulsInSlices } from "./nul-free-view";
import { runDecodedViewInSlices } from "./run-decoded-view";
import { MAX_SPELLED_STEPS, spelledViews } from "./spelled-views";

/** At most how many characters of a copy a sequence placed before it can swallow (`&#1234567`). */
export const MAX_SWALLOWED = 7;

/**
 * The text and every view worth searching, one at a time: the text, its NUL-free view, and from
 * each, up to `MAX_STEPS` steps (./decode-step.ts) decoding every family. Views are made as they
 * are asked for, so only the one being searched and the maps behind it are held at once.
 *
 * A sequence that reads digits can swallow the first characters of a copy that another family
 * encodes (`=de&#97;dbeef`: quoted-printable takes `=de`, and the view shows `Þadbeef`). Such a
 * view shows the rest of the copy right after what the swallowing sequence decoded to; when
 * `mayHideCopy` finds the rest of a form there, steps decoding every family but the one whose
 * digits were read are added too. Ordinary text costs no extra view.
 * @param text - what the program would receive
 * @param mayHideCopy - whether some form of a secret, less its first characters, follows a
 *   decoded sequence of the view
 */
export function* decodedViews(
  text: string,
  mayHideCopy: (view: View) => Sliced<boolean>,
): Generator<View> {
  for (const view of decodedViewsInSlices(text, mayHideCopy)) if (view !== PAUSE) yield view;
}

/**
 * {@link decodedViews} with the pauses of its decoding steps (../slices.ts) between the views: a
 * caller that gives the thread away at each {@link PAUSE} holds it for a bounded slice only.
 * @param text - what the program would receive
 * @param mayHideCopy - as for {@link decodedViews}
 * @param runDepth - how many run encodings were decoded to make `text` (./run-decoded-view.ts)
 * @param inert - whether a character is inert and in no form of a secret
 *   (./changed-segments.ts): the spelled-out readings of a decoded view are then made of its
 *   changed segments only; without it, of the whole view
 * @param everyReading - for a text cut to its long stretches (./long-stretches.ts): readings
 *   decided by a look over a whole view are made as if it found what it looks for
 *   (./spelled-views.ts), and the steps that leave out a family are made for every family
 *   whenever a first step decoded something, as if `mayHideCopy` had answered true
 */
export function* decodedViewsInSlices(
  text: string,
  mayHideCopy: (view: View) => Sliced<boolean>,
  runDepth = 0,
  inert?: (code: number) => boolean,
  everyReading = false,
): Generator<View | Pause> {
  const base: View = { text, origin: null };
  yield base;
  yield* spelledViews(base, inert, everyReading);
  const dump = yield* dumpTextViewInSlices(base);
  if (dump) yield dump;
  const dumped = yield* dumpBytesViewInSlices(base);
  if (dumped) {
    yield dumped;
    // A dump of UTF-16 bytes (`74 00 6f 00`) reads as the text once its NULs are dropped.
    const dumpedNulFree = yield* withoutNulsInSlices(dumped, inert);
    if (dumpedNulFree) yield dumpedNulFree;
    yield* decodeSteps(dumped, ALL_FAMILIES, MAX_SPELLED_STEPS, inert);
  }
  // ROT13 over a character-level encoding: decoded once turned back. Searched itself too, so
  // its steps can be cut to what they change: what a step leaves is the rotated text, which the
  // views of its steps held in full before (issue #40).
  const rotated = yield* rot13ViewInSlices(base);
  if (rotated) {
    yield rotated;
    yield* decodeSteps(rotated, ALL_FAMILIES, undefined, inert);
  }
  // UTF-16BE read as little-endian (`t` is U+7400): read back, then decoded (its characters may
  // spell a character-level encoding).
  const unswapped = yield* swappedUtf16ViewInSlices(base);
  if (unswapped) {
    yield unswapped;
    yield* decodeSteps(unswapped, ALL_FAMILIES, undefined, inert);
  }
  const nulFree = yield* withoutNulsInSlices(base, inert);
  if (nulFree) {
    yield nulFree;
    yield* spelledViews(
      inert ? yield* changedSegmentsInSlices(nulFree, inert) : nulFree,
      inert,
      everyReading,
    );
  }
  for (const start of nulFree ? [base, nulFree] : [base]) {
    let digits: number | undefined;
    let suspect = everyReading;
    for (const view of decodeSteps(start, ALL_FAMILIES, undefined, inert)) {
      if (view === PAUSE) {
        yield view;
        continue;
      }
      // What the views before it did not hold: the parts its step changed.
      yield* spelledViews(
        inert ? yield* changedSegmentsInSlices(view, inert) : view,
        inert,
        everyReading,
      );
      // The families whose digits any step of the chain read: those that can have swallowed a
      // copy. Not the first step's only: `%3Dcf%252D…` decodes to `=cf%2D…`, whose `=cf` the
      // second step reads as quoted-printable, taking the copy's first two characters (a text
      // body let it through before session 28). In a cut text every family: which ones a step
      // reads depends on more than the stretches kept (a step over a view's changes reaches
      // LONGEST_SEQUENCE characters back, into the stretch before, which the cut may have left
      // out): the fuzz found a copy main reads only because a short stretch far away held `=41`
      // within such a reach.
      digits = everyReading ? ALL_FAMILIES : (digits ?? 0) | (view.digitFamilies ?? 0);
      if (!suspect && digits !== 0) suspect = yield* mayHideCopy(view);
      yield view;
      // Byte-swapped UTF-16 that was escaped (`\u7400\u6f00…` in a JSON string).
      const decodedUnswapped = yield* swappedUtf16ViewInSlices(view);
      if (decodedUnswapped) yield decodedUnswapped;
    }
    if (!suspect || !digits) continue;
    for (const family of FAMILIES)
      if (digits & family) yield* decodeSteps(start, ALL_FAMILIES & ~family, undefined, inert);
  }
  // Long runs of a run encoding that decode to text, searched in every view above as a text of
  // their own: a third layer under a run encoding (base64 of base64 of `%XX`).
  if (runDepth >= MAX_RUN_DEPTH) return;
  const runs = yield* runDecodedViewInSlices(base);
  if (!runs) return;
  for (const view of decodedViewsInSlices(
    runs.text,
    mayHideCopy,
    runDepth + 1,
    inert,
    everyReading,
  ))
    yield view === PAUSE
      ? view
      : { text: view.text, origin: view.origin ? compose(runs.origin, view.origin) : runs.origin };
}

/**
 * Run encodings decoded one inside the other at most: four (with the layers the views and the
 * forms read beneath, base64⁵ of `%XX` and base64⁶ of the secret itself are read). Each level is a text at
 * most 0.8 of the one it was read from (a run of 20 characters or more decodes to 3/4 of it at
 * most, and a line break joins two), so the levels cost at most 1 + 0.8 + … + 0.8⁴ = 3.4 times
 * the text's own views (2 levels: 2.4), and only a body of runs that decode to runs pays it:
 * other bodies have no level 1 or stop there.
 */
const MAX_RUN_DEPTH = 4;

/**
 * Where a range of a view lies in the original text.
 * @param view - the view searched
 * @param start - start of the match in the view
 * @param end - end of the match in the view
 */
export function originalRange(view: View, start: number, end: number): [number, number] {
  return view.origin ? [view.origin(start, false), view.origin(end, true)] : [start, end];
}

/**
 * The views of bytes' UTF-8 reading (./utf8-bytes-view.ts), searched after the byte view's own:
 * the reading, its spelled-out readings (folding, invisible characters dropped, full-width
 * lists, tag characters, and the decoding steps after them) and its byte-swapped UTF-16 view
 * with the steps after it. Not the decoding chain the byte view had: the reading differs from
 * the byte view only where a character beyond ASCII was, and the steps read ASCII sequences,
 * which the byte view's chain decoded already; making it again doubled a binary body's search.
 * But what the byte view's chain decoded was then read without what only this reading drops or
 * folds (U+200B is `â€‹` there): its compact views are also decoded beside what compaction
 * dropped or folded (./beside-folded-steps.ts).
 * @param read - the UTF-8 reading, mapped to the bytes
 * @param inert - as for {@link decodedViewsInSlices}, only when the forms searched in the
 *   reading are those searched in the bytes (all ASCII): its unchanged segments were read there
 * @param everyReading - as for {@link decodedViewsInSlices}
 */
export function* utf8ViewsInSlices(
  read: View,
  inert?: (code: number) => boolean,
  everyReading = false,
): Generator<View | Pause> {
  yield read;
  // Its compact views decoded beside what they dropped: it has no decoding chain of its own
  // (./beside-folded-steps.ts).
  yield* spelledViews(
    inert ? yield* changedSegmentsInSlices(read, inert) : read,
    inert,
    everyReading,
    true,
  );
  const unswapped = yield* swappedUtf16ViewInSlices(read);
  if (unswapped) {
    yield unswapped;
    yield* decodeSteps(unswapped, ALL_FAMILIES, undefined, inert);
  }
}
