/**
 * Decoding steps beside folded characters: a full-width copy with an ASCII sequence inside it
 * (`ｔｏｋ\u005fＬｉｖｅ…`, `ｔｏｋ%5FＬｉｖｅ…`). Decoding comes before folding for a text's own
 * sequences, and a step's view is folded only where the step produced whitespace or a character
 * beyond ASCII (./spelled-views.ts): `_` between full-width letters is neither, and the compact
 * view (`tok\u005fLive…`) is decoded only when folding produced a sequence's start. So such a
 * copy was read in no view, in a text or in bytes.
 *
 * Here the compact view is decoded where a sequence's start lies beside a character folded to
 * ASCII: the decoding step tries only those places (its windows, ./decode-step.ts), so a body
 * without such a neighbour costs one look at what folding produced, and one with it a step over
 * those places, not over the text.
 *
 * Beside a dropped character too, for the compact views of bytes' UTF-8 reading
 * (./utf8-bytes-view.ts), which gets no decoding chain of its own: `%74` + U+200B + `o…` in bytes
 * was decoded in the byte view, where U+200B is three windows-1252 characters no reading drops,
 * and dropped in the UTF-8 reading, where no step followed, so the copy was read in no view
 * (attack16). A text's own steps come before its compaction, so its compact views need not.
 */
import { PAUSE, SLICE_POSITIONS, type Pause } from "../slices";
import { SequenceMap } from "../sequence-map";
import type { View } from "../view-builder";
import { ALL_FAMILIES, decodeSteps, LONGEST_SEQUENCE } from "./decode-step";

/** `% & \ =`: what starts a character-level sequence. */
const ANY_LEAD = /[%&\\=]/;
const isLead = (c: number) => c === 37 || c === 38 || c === 92 || c === 61;

/**
 * The decoding steps of a compact view at the characters it folded to ASCII that have a
 * sequence's start beside them (up to {@link LONGEST_SEQUENCE} before, or right after).
 * @param compact - a compact view (../spellings/compact-view.ts): what it changed is folding
 *   (characters beyond ASCII, a non-empty output) or dropping (an empty one)
 * @param steps - how many decoding steps at most
 * @param dropped - beside what it dropped too (see the file header)
 */
export function* stepsBesideFolded(
  compact: View,
  steps: number,
  dropped = false,
): Generator<View | Pause> {
  const { changed, text } = compact;
  // A native look first: most folded text (CJK with full-width words) holds no sequence's start.
  if (!changed || changed.count === 0 || !ANY_LEAD.test(text)) return;
  const windows = new SequenceMap();
  let budget = SLICE_POSITIONS;
  // Positions looked at for a lead so far, the last lead seen, where the last window ends.
  let [looked, lastLead, windowEnd] = [0, -1, 0];
  for (let t = 0; t < changed.count; t++) {
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
    const start = changed.outStart(t);
    const end = start + changed.outLength(t);
    if (end === start && !dropped) continue;
    let ascii = true;
    for (let i = start; i < end && ascii; i++) ascii = text.charCodeAt(i) < 0x80;
    if (!ascii) continue;
    const from = Math.max(windowEnd, start - LONGEST_SEQUENCE);
    for (let i = Math.max(looked, from); i <= end && i < text.length; i++)
      if (isLead(text.charCodeAt(i))) lastLead = i;
    looked = Math.max(looked, end + 1);
    // A drop right where the last window ends: that window's step tries the position after it.
    if (lastLead < from || end <= from) continue;
    windows.add(from, end - from, end - from);
    windowEnd = end;
  }
  if (windows.count === 0) return;
  yield* decodeSteps({ text, origin: compact.origin, changed: windows }, ALL_FAMILIES, steps);
}
