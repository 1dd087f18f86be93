/**
 * The tag view: Unicode tag characters read as the ASCII they mirror, everything else dropped.
 * Tags are invisible, so a copy written in them ("ASCII smuggling") passes every reader but this
 * one. Made like a decoding step (../view-builder.ts).
 */
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../slices";
import { compose, ViewBuilder, type View } from "../view-builder";

/**
 * The fewest tag characters read alone: a form of a secret is at least 8 characters. Read in
 * place, one is enough: the visible characters around it are the rest of the copy (attack8: a
 * single tag inside a credential, or one every third character, hid it from every reading).
 */
const MIN_TAGS = 8;

/** A tag character (U+E0020–U+E007E) at `at`, as UTF-16 or as UTF-8 read one character per byte. */
function tagAt(text: string, at: number): [string, number] | undefined {
  const c = text.charCodeAt(at);
  if (c === 0xdb40) {
    const low = text.charCodeAt(at + 1);
    return low >= 0xdc20 && low <= 0xdc7e ? [String.fromCharCode(low - 0xdc00), 2] : undefined;
  }
  if (c !== 0xf3 || text.charCodeAt(at + 1) !== 0xa0) return undefined;
  const [b2, b3] = [text.charCodeAt(at + 2), text.charCodeAt(at + 3)];
  if ((b2 !== 0x80 && b2 !== 0x81) || b3 < 0x80 || b3 > 0xbf) return undefined;
  const code = ((b2 & 0x3f) << 6) | (b3 & 0x3f);
  return code >= 0x20 && code <= 0x7e ? [String.fromCharCode(code), 4] : undefined;
}

/**
 * Positions the tag view walked since the isolate started: a count that does not depend on the
 * machine, so a test can bound the work between two pauses.
 */
export const tagWork = { positions: 0 };

/**
 * The view of a text's Unicode tag characters read as the ASCII they mirror (U+E0074 is `t`),
 * everything else dropped, or undefined when it has fewer than {@link MIN_TAGS} (in place: none).
 * Tags are invisible, so the compact view drops them (a copy joined by them reads as one); a copy
 * written in them ("ASCII smuggling") is read here, also between visible characters.
 *
 * With `inPlace`, everything else stays: a copy whose characters alternate between visible ASCII
 * and tags (`t`, tag `o`, `k`, …) reads as one only with both (attack7), while a copy in tags
 * between visible noise reads only with the noise dropped; the caller makes both readings.
 *
 * A sliced pass (../slices.ts), pausing after at most {@link SLICE_POSITIONS} positions: a body of tags
 * between other characters (U+E0074 `ÿ` × 1.4 M, 4 M characters) is millions of replacements,
 * and made in one go it held the host thread 100–180 ms on an idle core, 0.5–0.7 s on a loaded
 * one (issue #40; bench/README.md, "Tag views in slices"). The pauses change nothing but when
 * the work is done: the walk's state (`i`, `other`, `tags`) is the generator's own.
 * @param view - a text and its map to the original
 * @param inPlace - read the tags where they stand and keep every other character
 */
export function* tagViewInSlices(view: View, inPlace = false): Sliced<View | undefined> {
  const { text } = view;
  const builder = new ViewBuilder(text);
  let tags = 0;
  let other = 0;
  // Turns of at most SLICE_POSITIONS positions: a tag read at a turn's end reads up to three
  // characters past it (its UTF-8 bytes), so a turn stops three short.
  for (let i = 0; i < text.length;) {
    const from = i;
    const end = Math.min(text.length, from + SLICE_POSITIONS - 3);
    while (i < end) {
      const tag = tagAt(text, i);
      if (!tag) {
        i++;
        continue;
      }
      if (i > other && !inPlace) builder.replace(other, i - other, "");
      builder.replace(i, tag[1], tag[0]);
      tags++;
      i += tag[1];
      other = i;
    }
    tagWork.positions += i - from;
    if (i < text.length) yield PAUSE;
  }
  if (tags < (inPlace ? 1 : MIN_TAGS)) return undefined;
  if (text.length > other && !inPlace) builder.replace(other, text.length - other, "");
  return {
    text: builder.finish()!,
    origin: compose(view.origin, builder.map.origin()),
    changed: builder.map,
  };
}
