// The bodies of the heavy-bodies e2e (issue #40), made the same way wherever they are read:
// test/e2e/heavy-bodies.mjs sends them through the local server, and
// bench/diagnostics/random-body-alloc.mjs reads them through the redaction alone, so the two
// measure the same bytes.

/**
 * Body `n` of seeded random bytes (xorshift32, one seed per body: the same bytes every run).
 * @param {number} n
 * @param {number} size - bytes
 * @returns {Uint8Array}
 */
export function randomBody(n, size) {
  const bytes = new Uint8Array(size);
  let x = 0x9e3779b9 ^ (n + 1);
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

/**
 * A body of `%25`-escapes in the spellings redaction decodes most: `%2541`, `%25`, `%41`.
 * @param {number} size - characters (ASCII: bytes too)
 * @returns {string}
 */
export function percentBody(size) {
  const unit = "%2541%25%41a%2525";
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}
