/**
 * The NUL-free view: text with NULs between its characters is UTF-16 or UTF-32 read one byte at
 * a time, and reads as the text once they are dropped. Made like a decoding step
 * (../view-builder.ts), so a copy found in it is cut out with its NULs.
 */
import { compose, ViewBuilder, type View } from "../view-builder";

/**
 * The view without NULs, or undefined when there are none.
 * @param view - a text and its map to the original
 */
export function withoutNuls(view: View): View | undefined {
  const { text } = view;
  if (!text.includes("\0")) return undefined;
  const builder = new ViewBuilder(text);
  for (let i = text.indexOf("\0"); i >= 0; i = text.indexOf("\0", i)) {
    let end = i + 1;
    while (end < text.length && text.charCodeAt(end) === 0) end++;
    // A run of NULs decodes to nothing; trailing NULs of a UTF-16 or UTF-32 character thus
    // belong to the range of the character before them.
    builder.replace(i, end - i, "");
    i = end;
  }
  return { text: builder.finish()!, origin: compose(view.origin, builder.map.origin()) };
}
