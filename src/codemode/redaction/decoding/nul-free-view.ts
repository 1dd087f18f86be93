/**
 * The NUL-free view: text with NULs between its characters is UTF-16 or UTF-32 read one byte at
 * a time, and reads as the text once they are dropped. Made like a decoding step
 * (../view-builder.ts), so a copy found in it is cut out with its NULs.
 *
 * Made of the text and after every decoding step that produced a NUL: UTF-16 spelled with a
 * character-level encoding (`%74%00%6f%00…`, `t\u0000o\u0000…`, `&#116;&#0;…`) shows its NULs
 * only once decoded.
 */
import { PAUSE, SLICE_POSITIONS, sliceBudget, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";
import { mayHoldInert, MIN_CUT, SegmentCut } from "./changed-segments";

/**
 * The view without NULs, or undefined when there are none, as a sliced pass (../slices.ts). For
 * a decoded view, undefined unless its step produced a NUL: the NULs it kept from the view before
 * were dropped in that view's own NUL-free view, and a body without NULs costs only a look at
 * what the step produced.
 * @param view - a text and its map to the original
 * @param inert - only for a view that is searched whole: whether a character is inert and in no
 *   form of a secret; the NUL-free view is then made of the segments around its NULs
 *   (./changed-segments.ts: elsewhere it reads as the view does)
 */
export function* withoutNulsInSlices(
  view: View,
  inert?: (code: number) => boolean,
): Sliced<View | undefined> {
  const { text, changed } = view;
  if (changed ? !(yield* producedNul(view)) : !text.includes("\0")) return undefined;
  if (inert && text.length >= MIN_CUT && mayHoldInert(text)) {
    // Random bytes hold a NUL every 256 bytes: each reading of them made a NUL-free view of
    // all of it (issue #40).
    const cut = new SegmentCut(text, inert);
    const budget = sliceBudget();
    for (let i = text.indexOf("\0"); i >= 0 && !cut.whole; i = text.indexOf("\0", i)) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) === 0) end++;
      if (cut.keepsBefore(i)) yield* cut.keepFarBefore(i, budget);
      if (!cut.whole) budget.left -= cut.add(i, end);
      i = end;
      if (--budget.left <= 0) {
        budget.left = SLICE_POSITIONS;
        yield PAUSE;
      }
    }
    if (!cut.whole) yield* cut.keepFarBefore(Infinity, budget);
    if (!cut.whole) {
      const kept = cut.finish().text;
      return yield* withoutNulsInSlices({ text: kept, origin: compose(view.origin, cut.origin()) });
    }
  }
  const builder = new ViewBuilder(text);
  let budget = SLICE_POSITIONS;
  for (let i = text.indexOf("\0"); i >= 0; i = text.indexOf("\0", i)) {
    let end = i + 1;
    while (end < text.length && text.charCodeAt(end) === 0) end++;
    // A run of NULs decodes to nothing; trailing NULs of a UTF-16 or UTF-32 character thus
    // belong to the range of the character before them.
    builder.replace(i, end - i, "");
    i = end;
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  const nulFree = builder.finish();
  // Made by no step: the next step reads all of it, not only what this pass changed.
  return nulFree === undefined
    ? undefined
    : { text: nulFree, origin: compose(view.origin, builder.map.origin()), dropped: builder.map };
}

/** Whether a decoded view's step produced a NUL; a sliced pass over what it produced. */
function* producedNul(view: View): Sliced<boolean> {
  const { changed, text } = view;
  // No NUL anywhere, none produced: one native search instead of a walk over every sequence
  // (a list reading of `12 12 12 …` is a million of them, issue #40).
  const any = text.includes("\0");
  if (!changed || !any) return any;
  let budget = SLICE_POSITIONS;
  for (let t = 0; t < changed.count; t++) {
    const start = changed.outStart(t);
    const end = start + changed.outLength(t);
    for (let i = start; i < end; i++) if (text.charCodeAt(i) === 0) return true;
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
  }
  return false;
}
