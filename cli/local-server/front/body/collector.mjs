/**
 * Where the front keeps a request body's bytes while they arrive (../request-body.mjs), and how it
 * gives their memory back the moment they are no longer needed, instead of at V8's next
 * collection.
 *
 * Why: every piece Node's HTTP parser hands over is a fresh buffer of its own (up to 64 KiB,
 * allocated by malloc in the process's heap), and it is freed only when a garbage collection
 * finds it dead; a chunked body's pieces kept in a list until its end even survive into V8's old
 * generation, which only a full collection sweeps. 120 uploads at once grew the `npm start`
 * process's malloc heap by ~100 MiB of such buffers, most of them already dead, and glibc keeps a
 * heap's freed pages when anything lives above them: 90–110 MiB stayed after the uploads
 * closed (issue #40). So each piece is copied once into the body's own storage and its memory
 * freed at once ({@link freeNow}), and the storage is freed at once too when the body is
 * refused. The heap then reuses the same few blocks for every piece.
 *
 * Storage: a declared body's one buffer of its length (its pages are touched only as bytes are
 * written), a chunked body's pieces of {@link PIECE_BYTES} joined once whole. Buffers of that size
 * or more are mapped on their own by malloc (the supervisor's malloc settings: malloc-env.mjs),
 * so freeing them gives their pages back to the system.
 */

/** The size of a chunked body's storage pieces (at least malloc's mmap threshold, 128 KiB). */
export const PIECE_BYTES = 256 * 1024;

/**
 * Frees a buffer's memory now, when the buffer is the whole of its own ArrayBuffer (Node's
 * pooled small buffers are not: they are left to the collector). The ArrayBuffer is detached
 * (transferred to an empty one): every view of it then has length 0. Only for buffers nothing
 * else uses: a write still queued with it would read freed memory.
 * @param {Buffer | Uint8Array} buffer
 * @returns {boolean} whether it was freed
 */
export function freeNow(buffer) {
  // ES2024's ArrayBuffer.prototype.transfer (Node 22), not in this project's TypeScript lib.
  const whole = /** @type {ArrayBuffer & { transfer?: (length: number) => ArrayBuffer }} */ (
    buffer.buffer
  );
  if (
    !(whole instanceof ArrayBuffer) ||
    buffer.byteOffset !== 0 ||
    buffer.byteLength !== whole.byteLength ||
    whole.byteLength === 0 ||
    typeof whole.transfer !== "function"
  )
    return false;
  whole.transfer(0);
  return true;
}

/**
 * A body's storage while it arrives.
 * @typedef {object} BodyCollector
 * @property {(chunk: Buffer) => void} add - copies `chunk` in (the caller frees the chunk)
 * @property {() => Buffer} body - the bytes added, as one buffer (once, at the body's end)
 * @property {() => void} discard - frees everything (the body was refused or its client left)
 * @property {() => number} size - bytes added
 */

/**
 * Storage for a body of `declared` bytes (its Content-Length), or of unknown length (chunked).
 * @param {number | undefined} declared
 * @returns {BodyCollector}
 */
export function collectBody(declared) {
  let size = 0;
  if (declared !== undefined) {
    const whole = Buffer.allocUnsafeSlow(declared);
    return {
      add: (chunk) => {
        whole.set(chunk, size);
        size += chunk.length;
      },
      body: () => whole.subarray(0, size),
      discard: () => void freeNow(whole),
      size: () => size,
    };
  }
  /** @type {Buffer[]} */
  const pieces = [];
  let room = 0;
  return {
    add: (chunk) => {
      let at = 0;
      while (at < chunk.length) {
        if (room === 0) {
          pieces.push(Buffer.allocUnsafeSlow(PIECE_BYTES));
          room = PIECE_BYTES;
        }
        const piece = /** @type {Buffer} */ (pieces.at(-1));
        const n = Math.min(room, chunk.length - at);
        piece.set(chunk.subarray(at, at + n), PIECE_BYTES - room);
        room -= n;
        at += n;
      }
      size += chunk.length;
    },
    body: () => {
      if (pieces.length === 1) {
        const piece = /** @type {Buffer} */ (pieces[0]);
        if (size > PIECE_BYTES / 4) return piece.subarray(0, size);
        // A small body keeps no piece mapped for as long as its request lasts.
        const body = Buffer.allocUnsafe(size);
        body.set(piece.subarray(0, size));
        freeNow(piece);
        return body;
      }
      const body = Buffer.concat(pieces, size);
      for (const piece of pieces.splice(0)) freeNow(piece);
      return body;
    },
    discard: () => {
      for (const piece of pieces.splice(0)) freeNow(piece);
    },
    size: () => size,
  };
}
