/**
 * Random-looking bytes from a fixed generator (a linear congruential one, its top byte): the
 * noise the redaction tests hide spellings in. Fixed so no test depends on chance, and shared so
 * each test's noise is the same bytes as every other's for the same seed.
 */

/**
 * `length` bytes of noise for `seed`.
 * @param length - how many bytes
 * @param seed - the generator's start
 */
export function noiseBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

/**
 * The same noise as text: each byte one character (its Latin-1 reading).
 * @param length - how many characters
 * @param seed - the generator's start
 */
export function noiseText(length: number, seed: number): string {
  const bytes = noiseBytes(length, seed);
  let out = "";
  for (let i = 0; i < bytes.length; i += 8_192)
    out += String.fromCharCode(...bytes.subarray(i, i + 8_192));
  return out;
}
