/**
 * The readings of issue #41's third review, in one place for ../decoding/spelled-views.ts to ask
 * for: octal bytes outside a dump (./octal-view.ts), Unicode code point notation
 * (./code-point-view.ts), character dumps (`od -c`, ./char-dump-view.ts), `xxd -e`
 * (./xxd-little-endian-view.ts) and Morse (./morse-view.ts). Each is made of the text and of every
 * decoded view (a dump inside a JSON string has its line breaks only once `\n` is decoded), and
 * only when the text holds its notation: each starts with a native search for it.
 */
import { charDumpView } from "./char-dump-view";
import { codePointView } from "./code-point-view";
import { dumpBytesView, dumpTextView } from "./dump-views";
import { morseView } from "./morse-view";
import { octalViews } from "./octal-view";
import type { View } from "../view-builder";
import { xxdLittleEndianViews } from "./xxd-little-endian-view";
import { compactView } from "./compact-view";

/**
 * The notation views of a view that exist, one at a time.
 * @param view - a text (or a decoded view) and its map to the original
 */
export function* notationViews(view: View): Generator<View> {
  const decoded = view.changed !== undefined;
  const makers: (() => (View | undefined)[])[] = [
    () => octalViews(view),
    () => [codePointView(view)],
    () => [charDumpView(view)],
    () => xxdLittleEndianViews(view),
    () => [morseView(view)],
    // The text's own dumps are read by ../decoding/decoded-views.ts; a decoded view's (a dump in a
    // JSON string) only here.
    () => (decoded ? [dumpBytesView(view), dumpTextView(view)] : []),
  ];
  for (const make of makers)
    for (const made of make()) {
      if (!made) continue;
      yield made;
      // Code points of full-width letters read as full-width letters: folded (NFKC) here, as
      // the compact view folds the text's own.
      const compact = NON_ASCII.test(made.text) ? compactView(made) : undefined;
      if (compact) yield compact;
    }
}

const NON_ASCII = /[^\0-\x7f]/;
