/**
 * The readings of issue #41's third review, in one place for ../decoding/spelled-views.ts to ask
 * for: octal bytes outside a dump (./octal-view.ts), Unicode code point notation
 * (./code-point-view.ts), character dumps (`od -c`, ./char-dump-view.ts), `xxd -e`
 * (./xxd-little-endian-view.ts) and Morse (./morse-view.ts). Each is made of the text and of every
 * decoded view (a dump inside a JSON string has its line breaks only once `\n` is decoded).
 *
 * What a body pays for them (issue #40): each reading is made only when the text holds what it
 * reads (the characters a notation cannot do without, then a native search for its start, in
 * windows: ../windowed-search.ts), one view at a time (a reading is searched, and what comes of
 * it, before the next is made), and every pass pauses like the decoding steps (../slices.ts).
 */
import { charDumpViewInSlices } from "./char-dump-view";
import { codePointViewInSlices } from "./code-point-view";
import { dumpBytesViewInSlices, dumpTextViewInSlices } from "./dump-views";
import { morseViewInSlices } from "./morse-view";
import { octalViewsInSlices } from "./octal-view";
import { PAUSE, type Pause, type Sliced } from "../slices";
import type { View } from "../view-builder";
import { sliceBudget } from "../windowed-search";
import { xxdLittleEndianViewInSlices } from "./xxd-little-endian-view";
import { compactViewInSlices } from "./compact-view";

/**
 * The notation views of a view that exist, one at a time (a synchronous walk of
 * {@link notationViewsInSlices}, for callers that need no pauses).
 * @param view - a text (or a decoded view) and its map to the original
 */
export function* notationViews(view: View): Generator<View> {
  for (const made of notationViewsInSlices(view)) if (made !== PAUSE) yield made;
}

/**
 * The notation views of a view that exist, one at a time, with the pauses of their passes
 * between them: a view is made only when the one before it (and what the caller made of it) is
 * done with.
 * @param view - a text (or a decoded view) and its map to the original
 * @param narrow - what of a notation view its compact view is made of (the caller's cut to what
 *   the notation changed, ../decoding/changed-segments.ts: the rest compacts as the text did);
 *   all of it by default
 */
export function* notationViewsInSlices(
  view: View,
  narrow?: (view: View) => Sliced<View>,
): Generator<View | Pause> {
  // Each reading first asks whether the text holds the characters it cannot do without (native
  // scans: octal digits and a separator, `\` or `0o`; `+` or `\x{`; a line break, as every
  // dump has two lines at least; Morse's marks and a space), then searches for its start.
  const budget = sliceBudget();
  yield* withCompact(octalViewsInSlices(view, budget), narrow);
  yield* withCompact(madeBy(codePointViewInSlices(view, budget)), narrow);
  yield* withCompact(madeBy(charDumpViewInSlices(view, budget)), narrow);
  yield* withCompact(madeBy(xxdLittleEndianViewInSlices(view, "bytes", budget)), narrow);
  yield* withCompact(madeBy(xxdLittleEndianViewInSlices(view, "columns", budget)), narrow);
  yield* withCompact(madeBy(morseViewInSlices(view, budget)), narrow);
  // The text's own dumps are read by ../decoding/decoded-views.ts; a decoded view's (a dump in a
  // JSON string) only here.
  if (view.changed !== undefined) {
    yield* withCompact(madeBy(dumpBytesViewInSlices(view, budget)), narrow);
    yield* withCompact(madeBy(dumpTextViewInSlices(view, budget)), narrow);
  }
}

/**
 * The compact views {@link notationViewsInSlices} made of what `narrow` kept of a notation view
 * (not of all of it): ../decoding/spelled-views.ts reads the folded view's notations so.
 */
export const narrowedCompacts = new WeakSet<View>();

/** A sliced pass that makes one view, as a walk that yields the view when there is one. */
function* madeBy(pass: Sliced<View | undefined>): Generator<View | Pause> {
  const made = yield* pass;
  if (made) yield made;
}

/**
 * Each view the walk makes, then its compact view when it holds a character beyond ASCII: code
 * points of full-width letters read as full-width letters, folded (NFKC) here, as the compact
 * view folds the text's own; of what `narrow` keeps of the view, when given.
 */
function* withCompact(
  made: Generator<View | Pause>,
  narrow?: (view: View) => Sliced<View>,
): Generator<View | Pause> {
  for (const view of made) {
    yield view;
    if (view === PAUSE || !NON_ASCII.test(view.text)) continue;
    const compact = yield* compactViewInSlices(narrow ? yield* narrow(view) : view);
    if (compact && narrow) narrowedCompacts.add(compact);
    if (compact) yield compact;
  }
}

const NON_ASCII = /[^\0-\x7f]/;
