/**
 * The ROT13 view: the text in ROT13 when it holds a sequence of a character-level encoding
 * written in ROT13 (`%6S`), for the decoding steps to undo. ROT13 of the secret itself is a
 * literal form (../search/secret-forms.ts); this view is for ROT13 applied over an encoding.
 */
import type { View } from "../view-builder";

/**
 * A sequence of a character-level encoding written in ROT13 (`%6F` → `%6S`, `\x74` → `\k74`,
 * `&#x74;` → `&#k74;`, `=6F` → `=6S`): digits and hex letters past `m`, which no encoding has.
 */
const ROT13_SEQUENCE =
  /%(?:[0-9][n-sN-S]|[n-sN-S][0-9n-sN-S])|=(?:[0-9][N-S]|[N-S][0-9N-S])|\\[kKhH][0-9n-sN-S]{2}|&#[kK][0-9n-sN-S]/;

/**
 * The view of a text in ROT13 (same length, so the same map), or undefined when it holds no
 * sequence of a character-level encoding written in ROT13: the decoding steps run on it then
 * undo a ROT13 applied over a percent-encoding or escapes (ROT13 of the secret itself is a
 * literal form, ../search/secret-forms.ts).
 * @param view - a text and its map to the original
 */
export function rot13View(view: View): View | undefined {
  const { text } = view;
  if (!ROT13_SEQUENCE.test(text)) return undefined;
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const lower = c | 32;
    out[i] = lower >= 97 && lower <= 122 ? c + (lower <= 109 ? 13 : -13) : c;
  }
  let rotated = "";
  for (let k = 0; k < out.length; k += 8192)
    rotated += String.fromCharCode.apply(null, out.subarray(k, k + 8192) as unknown as number[]);
  return { text: rotated, origin: view.origin };
}
