/**
 * Finds any of a few hundred literal texts in a long text, ignoring ASCII letter case, at a cost
 * that does not grow with the number of texts. A regular expression alternation of that many
 * literals slows V8 down by an order of magnitude past a few hundred alternatives (131 ms for 600
 * forms on 1 MB, against 9 ms for 40), and one `indexOf` per form costs as much; redaction runs on
 * every response and on several decoded views of it.
 *
 * How (q-gram sampling): with `m` the length of the shortest form, every occurrence of a form
 * covers `m` consecutive positions, so sampling one window of {@link GRAM} characters every
 * `m - GRAM + 1` positions lands inside the first `m` characters of each occurrence. Each form
 * registers the hashes of its windows at the offsets a sample can land on; a sample's hash is
 * looked up in a bit set, and only on a hit (rare in ordinary text) are the forms compared.
 */

import { CodeModeError } from "../../../errors";

/** The sampled window length; every form is at least this long. */
export const GRAM = 4;

const BITS = 20;

const fold = (c: number) => (c >= 65 && c <= 90 ? c | 32 : c);
const foldText = (text: string) => text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
// Fibonacci hashing: the top bits of the product mix every character of the window.
const slot = (key: number) => Math.imul(key, 0x9e3779b1) >>> (32 - BITS);

/**
 * A window's key: its four characters' low bytes with bit 5 set, packed in 32 bits. Setting bit
 * 5 folds ASCII letter case in one operation (and folds some other characters together, which
 * only adds rare candidates: every candidate is compared exactly). Cheaper than a multiplying
 * hash, and the scan computes one per sample.
 * @param text - the text
 * @param at - where the window starts (`at + GRAM <= text.length`)
 */
export function windowKey(text: string, at: number): number {
  return (
    (((text.charCodeAt(at) | 32) & 255) << 24) |
    (((text.charCodeAt(at + 1) | 32) & 255) << 16) |
    (((text.charCodeAt(at + 2) | 32) & 255) << 8) |
    ((text.charCodeAt(at + 3) | 32) & 255)
  );
}

/** A match: `[start, end)` in the scanned text. */
export type Range = readonly [number, number];

/** Scans texts for a fixed set of forms. */
export interface FormScanner {
  /**
   * The matches sampled in `[from, to)` of `text` (a form at a start, compared with the whole
   * text around it), appended to `found` as start and end pairs, in no particular order. Spans
   * that tile a text find exactly what one span over all of it finds (each sample position
   * belongs to one span): a caller scans a long text in spans and pauses between them.
   * @param text - the text
   * @param from - where the span starts
   * @param to - where it ends
   * @param found - where the pairs go
   */
  scanSpan(text: string, from: number, to: number, found: number[]): void;
}

/**
 * Builds a scanner for a set of forms (ASCII letters match in any case).
 * @param forms - literal texts, each at least {@link GRAM} characters
 * @throws CodeModeError `secret_too_short` when a form is shorter than {@link GRAM}
 */
export function formScanner(forms: Iterable<string>): FormScanner {
  const unique = [...new Set([...forms].map(foldText))];
  if (unique.length === 0) return { scanSpan: () => {} };
  const shortest = Math.min(...unique.map((form) => form.length));
  if (shortest < GRAM)
    throw new CodeModeError(
      "secret_too_short",
      `A secret form is shorter than ${GRAM} characters; secrets must be at least 8 characters (see assertRedactableSecrets).`,
    );
  const step = shortest - GRAM + 1;
  const bits = new Uint32Array(1 << (BITS - 5));
  // For each window hash, the forms holding it and at which offset.
  const byHash = new Map<number, { form: string; offset: number }[]>();
  for (const form of unique) {
    for (let offset = 0; offset < step; offset++) {
      const hash = windowKey(form, offset);
      const at = slot(hash);
      bits[at >>> 5]! |= 1 << (at & 31);
      const list = byHash.get(hash) ?? [];
      list.push({ form, offset });
      byHash.set(hash, list);
    }
  }
  const matches = (text: string, start: number, form: string) => {
    if (start < 0 || start + form.length > text.length) return false;
    for (let i = 0; i < form.length; i++)
      if (fold(text.charCodeAt(start + i)) !== form.charCodeAt(i)) return false;
    return true;
  };
  return {
    scanSpan(text, from, to, found) {
      // The samples are every step-th position of the whole text, whatever the span.
      const last = Math.min(to, text.length - GRAM + 1);
      for (let i = Math.ceil(from / step) * step; i < last; i += step) {
        const hash = windowKey(text, i);
        const at = slot(hash);
        if ((bits[at >>> 5]! & (1 << (at & 31))) === 0) continue;
        for (const { form, offset } of byHash.get(hash) ?? []) {
          const start = i - offset;
          if (matches(text, start, form)) found.push(start, start + form.length);
        }
      }
    },
  };
}
