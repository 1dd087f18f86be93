/**
 * The UTF-8 reading of bytes: bytes are searched one character per byte (../byte-text.ts), so a
 * secret's UTF-8, UTF-16 and UTF-32 forms are found at any offset; but a credential spelled in
 * characters beyond Latin-1 (full-width letters, byte-swapped UTF-16, full-width digits of a
 * list) and written as UTF-8 reads there as bytes no view folds (windows-1252 shows the
 * continuation byte 0x94 of `ｔ` as `”`), and got through a raw request body or a binary
 * answer while the same characters in a text body were cut out. This view reads every
 * well-formed multi-byte sequence as its character, mapped to its bytes, so the readings of text
 * that look past ASCII are made of it (./decoded-views.ts, `utf8ViewsInSlices`) and a copy is cut
 * out of the bytes where it was.
 *
 * Only bytes that hold a multi-byte sequence get a view: a native search finds the first lead
 * byte, so ASCII pays one search and no view. One pass, each byte looked at a bounded number of
 * times, sliced (../slices.ts). A text answer decoded as UTF-8 from well-formed UTF-8 gets none
 * (`readAsUtf8` of the search; ../../request/body-charset.ts, `wellFormedUtf8Text`): its decoded
 * text is this reading and is searched in every view anyway.
 */
import { utf8CodeFits, utf8LeadLength } from "../byte-text";
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../slices";
import { ViewBuilder, type View } from "../view-builder";

/** Bytes the pass moved past since the isolate started: a test bounds them by the bytes' length. */
export const utf8Work = { positions: 0 };

/** A UTF-8 lead byte of a multi-byte sequence, as the byte view shows it (windows-1252 keeps these). */
const LEAD = /[\xc2-\xf4]/;

/**
 * The bytes with each well-formed UTF-8 multi-byte sequence read as its character, mapped to its
 * bytes (other bytes as the byte view shows them), or undefined when they hold none.
 * @param bytes - the bytes
 * @param shown - the bytes one character per byte (../byte-text.ts's `byteView`)
 */
export function* utf8BytesViewInSlices(bytes: Uint8Array, shown: string): Sliced<View | undefined> {
  const first = shown.search(LEAD);
  if (first < 0) return undefined;
  let builder: ViewBuilder | undefined;
  let budget = SLICE_POSITIONS;
  const n = bytes.length;
  let i = first;
  while (i < n) {
    if (--budget <= 0) {
      budget = SLICE_POSITIONS;
      yield PAUSE;
    }
    const length = sequenceAt(bytes, i);
    const step = length === 0 ? 1 : length;
    if (length > 0) (builder ??= new ViewBuilder(shown)).replaceCode(i, length, sequenceCode);
    utf8Work.positions += step;
    i += step;
  }
  const text = builder?.finish();
  return text === undefined
    ? undefined
    : { text, origin: builder!.map.origin(), changed: builder!.map };
}

/** The code point of the sequence {@link sequenceAt} read last (no array per sequence). */
let sequenceCode = 0;

/**
 * The length of the well-formed UTF-8 multi-byte sequence at `at` (0: none; its code point goes
 * to {@link sequenceCode}): no overlong form, surrogate or code point beyond U+10FFFF.
 */
function sequenceAt(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  const length = utf8LeadLength(lead);
  if (length === 0 || at + length > bytes.length) return 0;
  let code = lead & (0xff >> (length + 1));
  for (let k = 1; k < length; k++) {
    const c = bytes[at + k]!;
    if (c < 0x80 || c > 0xbf) return 0;
    code = (code << 6) | (c & 0x3f);
  }
  if (!utf8CodeFits(code, length)) return 0;
  sequenceCode = code;
  return length;
}
