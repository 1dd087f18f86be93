/**
 * A request body read piece by piece, joined: the hosting layer reads bodies as streams (the
 * stateless handler's one read, the legacy tasks' small-body check) and parses the whole.
 */

/**
 * The pieces as one array, in order; a single piece is returned as it is, not copied.
 * @param chunks - the pieces read, in order
 * @param size - their total length in bytes (the reader counted it against its limit)
 */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}
