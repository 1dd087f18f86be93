/**
 * What an item of a list is, for each reading of a run (./lists-view.ts): a decimal code, a hex
 * byte (`74`, `0x74`, `0x` bytes back to back), binary (8 bits, or 6 or 7 standing alone, or
 * `0b`-prefixed), any of these inside quotes, or a one-character string (`"t"`, `"\u0074"`);
 * and what stands between two (./list-separators.ts, and between hex bytes `hexdump -C`'s line
 * end). Given as ./item-runs.ts's {@link RunItems}, so the lists view reads its runs with the
 * same reader as the notations.
 */
import type { ItemCode, RunItems } from "./item-runs";
import { isListSeparator, MOST_JOINERS } from "./list-separators";

// Character classes of ASCII, as bits in a table (the lists pass looks at every character).
const DIGIT = 1;
const HEX = 2;
const WORD = 4;
const SPACE = 8;
const CLASSES = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const char = String.fromCharCode(c);
  CLASSES[c] =
    (/\d/.test(char) ? DIGIT : 0) |
    (/[\da-f]/i.test(char) ? HEX : 0) |
    (/[\da-z]/i.test(char) ? WORD : 0) |
    (c === 32 || (c >= 9 && c <= 13) ? SPACE : 0);
}
const is = (c: number, kind: number) => c < 128 && (CLASSES[c]! & kind) !== 0;
const isDigit = (c: number) => is(c, DIGIT);
/** Whether a character code is an ASCII hex digit. */
export const isHex = (c: number) => is(c, HEX);
/** Whether a character code is an ASCII letter or digit. */
export const isWord = (c: number) => is(c, WORD);
/** Whether a character code is ASCII whitespace. */
export const isSpace = (c: number) => is(c, SPACE);
const isBit = (c: number) => c === 48 || c === 49;
/** Whether a character code is `x` or `X` (a `0x` prefix). */
export const isX = (c: number) => c === 120 || c === 88;
/** Whether a character code is a quote (`"` or `'`). */
export const isQuote = (c: number) => c === 34 || c === 39;

/**
 * The kinds of list item: a reading of a run. The lists view (./lists-view.ts) tries them in
 * order and reads the first long enough: a string of one character (at a quote), bits, then
 * decimal before hex (hex when it reads further) in its first view, hex before decimal in the
 * second.
 */
export type Kind = "decimal" | "hex" | "binary" | "chars";

/** `count` digits of `radix` at `at` as a number (the caller checked they are digits). */
function valueAt(text: string, at: number, count: number, radix: number): number {
  let value = 0;
  for (let k = at; k < at + count; k++) {
    const c = text.charCodeAt(k) | 32;
    value = value * radix + (c <= 57 ? c - 48 : c - 87);
  }
  return value;
}

/** Where an item reader puts the character it read, and its shape bits (see below). */
type Code = ItemCode;

/**
 * A shape bit: a decimal item of the run was not exactly two digits (quoted or not). The run
 * reader keeps where the last streak of items that set none starts (./item-runs.ts). While no
 * item sets it, each decimal item is also a hex item of the same length (`12`, `"12"`): the
 * lists view then knows the hex reading of the run up to where the decimal one ends without
 * counting it (./lists-view.ts).
 */
export const NOT_TWO_DIGITS = 1;

/** The fewest items a run needs: a form of a secret is at least 8 characters. */
export const MIN_ITEMS = 8;

/**
 * The length of the item of a run at `at` (0: none); the character it stands for goes to
 * `code.value`. One function per kind (not one that asks the kind at every item): the lists
 * view reads a million items of a body of small numbers four times over, and each reader's
 * call site then sees one function.
 */
type ItemAt = (text: string, at: number, code: Code) => number;

/** A number in a string (`["116","111"]`, `['0x74']`): the same item between its quotes. */
function quotedItem(text: string, at: number, code: Code, inner: ItemAt): number {
  const c = text.charCodeAt(at);
  const length = inner(text, at + 1, code);
  return length > 0 && text.charCodeAt(at + 1 + length) === c ? length + 2 : 0;
}

/** A one-character string: `"t"`, `"\t"`-style escapes and `"\u0074"`. */
function charsItem(text: string, at: number, code: Code): number {
  const c = text.charCodeAt(at);
  if (!isQuote(c)) return 0;
  const inner = text.charCodeAt(at + 1);
  if (inner === 92) {
    const next = text.charCodeAt(at + 2);
    if (next === 117) {
      for (let k = at + 3; k < at + 7; k++) if (!isHex(text.charCodeAt(k))) return 0;
      if (text.charCodeAt(at + 7) !== c) return 0;
      code.value = valueAt(text, at + 3, 4, 16);
      return 8;
    }
    if (Number.isNaN(next) || text.charCodeAt(at + 3) !== c) return 0;
    code.value = next;
    return 4;
  }
  if (Number.isNaN(inner) || inner === c) return 0;
  const width = inner >= 0xd800 && inner <= 0xdbff ? 2 : 1;
  if (text.charCodeAt(at + 1 + width) !== c) return 0;
  code.value = text.codePointAt(at + 1)!;
  return width + 2;
}

/** Bits: 8 (maybe followed by more: one run of bits), 6 or 7 alone, or `0b`-prefixed. */
function binaryItem(text: string, at: number, code: Code): number {
  const c = text.charCodeAt(at);
  if (isQuote(c)) return quotedItem(text, at, code, binaryItem);
  // `0b`-prefixed (Python's `bin()`, which drops leading zeros: 1 to 8 bits).
  if (c === 48 && (text.charCodeAt(at + 1) | 32) === 98) {
    let end = at + 2;
    while (end < at + 10 && isBit(text.charCodeAt(end))) end++;
    if (end === at + 2 || isWord(text.charCodeAt(end))) return 0;
    code.value = valueAt(text, at + 2, end - at - 2, 2);
    return end - at;
  }
  let bits = 0;
  while (bits < 8 && isBit(text.charCodeAt(at + bits))) bits++;
  // Eight bits may be followed by more (one run of bits); six or seven (a code without its
  // leading zeros: `1110100`, digits and punctuation need six) by no letter or digit.
  const after = text.charCodeAt(at + bits);
  if (bits < 6 || (isWord(after) && (bits < 8 || !isBit(after)))) return 0;
  code.value = valueAt(text, at, bits, 2);
  return bits;
}

/** A hex byte: two digits, or `0x` and one or two (`0x740x6f…`: `0x` bytes back to back). */
function hexItem(text: string, at: number, code: Code): number {
  const c = text.charCodeAt(at);
  const d = text.charCodeAt(at + 1);
  // Two hex digits and no letter or digit after them (`74 6f`): most items, read at once.
  if (isHex(c) && isHex(d) && !isWord(text.charCodeAt(at + 2))) {
    code.value = valueAt(text, at, 2, 16);
    return 2;
  }
  if (isQuote(c)) return quotedItem(text, at, code, hexItem);
  const prefixed = c === 48 && isX(text.charCodeAt(at + 1));
  const start = prefixed ? at + 2 : at;
  let end = start;
  while (end < start + 2 && isHex(text.charCodeAt(end))) end++;
  // `0x74` may be followed at once by the next `0x` (`0x740x6f…`, bytes printed back to back).
  const next = text.charCodeAt(end);
  const chained = prefixed && end - start === 2 && next === 48 && isX(text.charCodeAt(end + 1));
  if (end === start || (!prefixed && end - start < 2) || (isWord(next) && !chained)) return 0;
  code.value = valueAt(text, start, end - start, 16);
  return end - at;
}

/** A decimal code: one to seven digits, at most U+10FFFF. */
function decimalItem(text: string, at: number, code: Code): number {
  let end = at;
  let value = 0;
  for (let c = text.charCodeAt(end); end < at + 8 && isDigit(c); c = text.charCodeAt(++end))
    value = value * 10 + c - 48;
  if (end === at) return isQuote(text.charCodeAt(at)) ? quotedItem(text, at, code, decimalItem) : 0;
  if (end - at > 7 || isWord(text.charCodeAt(end)) || value > 0x10ffff) return 0;
  code.value = value;
  if (end - at !== 2) code.flags |= NOT_TWO_DIGITS;
  return end - at;
}

/** Each kind's item reader. */
const ITEM_AT: Record<Kind, ItemAt> = {
  decimal: decimalItem,
  hex: hexItem,
  binary: binaryItem,
  chars: charsItem,
};

/** `hexdump -C`'s line end: its text column, the line break and the next line's offset. */
export const DUMP_LINE_END = /^ *\|[\x20-\x7e]{1,16}\|\r?\n[0-9a-f]{8} +/;

/**
 * The separator's length at `at` between hex items (0 when there is none): a list separator
 * (./list-separators.ts), or `hexdump -C`'s line end (its text column and the next line's
 * offset).
 */
function hexSeparatorAt(text: string, at: number): number {
  let end = at;
  while (isSpace(text.charCodeAt(end))) end++;
  if (text.charCodeAt(end) === 124) {
    const tail = DUMP_LINE_END.exec(text.slice(end, end + 64));
    if (tail) return end + tail[0].length - at;
  }
  // Otherwise what ./list-separators.ts reads: whitespace around at most MOST_JOINERS separator
  // characters (the same loop, so the two readings agree wherever no `|` stands: the lists
  // view's `hexCountFrom` relies on it).
  for (let k = MOST_JOINERS; k > 0 && isListSeparator(text.charCodeAt(end)); k--) {
    end++;
    while (isSpace(text.charCodeAt(end))) end++;
  }
  return end - at;
}

/**
 * A run of one kind, as ./item-runs.ts's {@link RunReader} reads it: replaced only once it has
 * {@link MIN_ITEMS} items, so the lists view reads a run with the first reading that may be
 * chosen and a shorter run leaves the view as it was (no count first, then a read). A run of bits
 * needs no separator, nor do `0x` bytes; other numbers do (digits side by side are one number).
 */
function runItems(kind: Kind): RunItems {
  return {
    item: ITEM_AT[kind],
    minItems: MIN_ITEMS,
    joined:
      kind === "binary"
        ? true
        : kind === "hex"
          ? (text, end) => isX(text.charCodeAt(end + 1))
          : false,
    separatorAt: kind === "hex" ? hexSeparatorAt : undefined,
    perItem: true,
  };
}

/** Each kind's items, as ./item-runs.ts reads runs. */
export const RUN_ITEMS: Record<Kind, RunItems> = {
  decimal: runItems("decimal"),
  hex: runItems("hex"),
  binary: runItems("binary"),
  chars: runItems("chars"),
};
