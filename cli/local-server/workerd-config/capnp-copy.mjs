/**
 * A Cap'n Proto message copied without its schema, with text replaced on the way: how a workerd
 * configuration kept by the configuration cache (config-cache.mjs) gets this launch's values.
 * The kept configuration was built with a stand-in (a "slot") for every value that differs from
 * launch to launch (the settings, secrets and compiled spec in the bindings, the private folders'
 * paths); the copy puts each launch's values in their place.
 *
 * Why without a schema: Cap'n Proto's pointers say what they point to (a struct's data and
 * pointer sizes, a list's element size and count), so a message can be walked and copied whole
 * knowing nothing of workerd's schema (Cap'n Proto's own `copyToCanonical` works so). Only byte
 * lists (text and data) are looked into: one that holds a slot's name gets the value instead, and
 * its length changes, which a copy (not an edit in place) allows. Everything else is copied bit
 * for bit, into one segment, in the order met (pre-order), as the canonical form lays it out.
 *
 * Does not do: capabilities (a configuration has none; a capability pointer is copied as it is),
 * and a byte list's text is matched as bytes (UTF-8), never decoded.
 *
 * Wire format (capnproto.org/encoding.html): a stream message is a table (segment count − 1,
 * each segment's size in words, padded to a word) and its segments. A pointer is one word; its
 * low 2 bits say struct (0), list (1), far (2, a landing pad in another segment) or other (3).
 */

/** @typedef {ReturnType<typeof Buffer.alloc>} Bytes Node's Buffer (as `Buffer.alloc` gives it) */
/** The most nested pointers followed: a configuration is a few levels deep; a loop is not one. */
const MAX_DEPTH = 64;
/** Bits per element of list element sizes 0–5 (6: pointers, 7: composite). */
const ELEMENT_BITS = [0, 1, 8, 16, 32, 64];

/**
 * @typedef {object} Replace
 * @property {Bytes} marker - bytes every slot's name contains: a byte list without them is
 *   copied as it is (one search instead of one per slot)
 * @property {[Bytes, Bytes][]} slots - each slot's name and the bytes that take its place
 * @property {(content: Bytes) => void} [seen] - called with each byte list that holds the
 *   marker, before its slots are replaced (what a kept configuration's check reads)
 */

/**
 * The segments of a stream-framed message.
 * @param {Uint8Array} bytes
 * @returns {Bytes[]}
 */
export function readSegments(bytes) {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 8) throw new Error("capnp: not a message (shorter than its table)");
  const count = buffer.readUInt32LE(0) + 1;
  const table = 4 + 4 * count + ((4 * count + 4) % 8 === 0 ? 0 : 4);
  if (count > 1_024 || table > buffer.length) throw new Error("capnp: not a message (its table)");
  /** @type {Bytes[]} */
  const segments = [];
  let at = table;
  for (let i = 0; i < count; i++) {
    const size = buffer.readUInt32LE(4 + 4 * i) * 8;
    if (at + size > buffer.length) throw new Error("capnp: a segment runs past the message");
    segments.push(buffer.subarray(at, at + size));
    at += size;
  }
  return segments;
}

/**
 * The message `bytes` copied into one segment, every slot's name in a byte list replaced by its
 * value (see the header).
 * @param {Uint8Array} message - a stream-framed message (what workerd reads with `--binary`)
 * @param {Replace} replace
 * @returns {Bytes} the copy, stream-framed
 */
export function copyMessage(message, replace) {
  const segments = readSegments(message);
  // What the walk may read, in words: twice the message's words (a tree reads each word once,
  // plus one for each empty struct or element). Without it, pointers that share content (a DAG:
  // two pointers to one struct, at each of 64 levels) or a composite list of 2^30 zero-size
  // elements make a small message copy for hours and without bound in memory (Cap'n Proto's own
  // readers bound it so: their traversal limit).
  let budget = 2 * segments.reduce((words, segment) => words + segment.length / 8, 0) + 8;
  /** @param {number} words */
  const read = (words) => {
    budget -= words;
    if (budget < 0)
      throw new Error("capnp: a message that reads more than it holds (shared content)");
  };
  /** @type {Bytes} */
  let out = Buffer.alloc(Math.max(64, message.byteLength + 64));
  let used = 1; // word 0: the root pointer
  /** @param {number} words */
  const allocate = (words) => {
    const at = used;
    used += words;
    if (used * 8 > out.length) {
      const grown = Buffer.alloc(Math.max(out.length * 2, used * 8 + 64));
      out.copy(grown, 0, 0, at * 8);
      out = grown;
    }
    return at;
  };

  /**
   * Where a pointer's content is: its segment, the word it starts at, and the pointer word that
   * describes it (a far pointer's landing pad resolved).
   * @param {number} segment
   * @param {number} word - the pointer's position
   * @returns {{ segment: number, start: number, lo: number, hi: number } | null} null: a null pointer
   */
  const resolve = (segment, word) => {
    const seg = segments[segment];
    if (!seg || (word + 1) * 8 > seg.length) throw new Error("capnp: a pointer out of bounds");
    const lo = seg.readUInt32LE(word * 8);
    const hi = seg.readUInt32LE(word * 8 + 4);
    if (lo === 0 && hi === 0) return null;
    if ((lo & 3) === 2) {
      const pad = lo >>> 3;
      const padSegment = hi;
      const padSeg = segments[padSegment];
      if (!padSeg) throw new Error("capnp: a far pointer to no segment");
      if ((lo & 4) === 0) {
        // A landing pad is a struct or list pointer (a far one there would be followed forever).
        if ((pad + 1) * 8 > padSeg.length) throw new Error("capnp: a landing pad out of bounds");
        if ((padSeg.readUInt32LE(pad * 8) & 3) === 2)
          throw new Error("capnp: a far pointer's landing pad is another far pointer");
        const inner = resolve(padSegment, pad);
        if (!inner) return null;
        return inner;
      }
      // Double landing pad: a far pointer to the content, then the pointer that describes it.
      if ((pad + 2) * 8 > padSeg.length) throw new Error("capnp: a landing pad out of bounds");
      const farLo = padSeg.readUInt32LE(pad * 8);
      const farHi = padSeg.readUInt32LE(pad * 8 + 4);
      if ((farLo & 7) !== 2) throw new Error("capnp: a double landing pad without a far pointer");
      return {
        segment: farHi,
        start: farLo >>> 3,
        lo: padSeg.readUInt32LE((pad + 1) * 8),
        hi: padSeg.readUInt32LE((pad + 1) * 8 + 4),
      };
    }
    if ((lo & 3) === 3) return { segment, start: -1, lo, hi };
    // Struct or list: the offset (signed, 30 bits) counts from the word after the pointer.
    return { segment, start: word + 1 + (lo >> 2), lo, hi };
  };

  /**
   * Writes a struct or list pointer at `word` of the copy to content at `target`.
   * @param {number} word
   * @param {number} target
   * @param {number} kind - 0 struct, 1 list
   * @param {number} hi - the pointer's upper half
   */
  const point = (word, target, kind, hi) => {
    out.writeUInt32LE((((target - word - 1) << 2) | kind) >>> 0, word * 8);
    out.writeUInt32LE(hi >>> 0, word * 8 + 4);
  };

  /**
   * Copies the pointer at `word` of `segment` to `to` in the copy, and what it points to.
   * @param {number} segment
   * @param {number} word
   * @param {number} to
   * @param {number} depth
   */
  const copyPointer = (segment, word, to, depth) => {
    if (depth > MAX_DEPTH) throw new Error("capnp: pointers nested too deep");
    const found = resolve(segment, word);
    if (!found) return;
    const { lo, hi } = found;
    const seg = segments[found.segment];
    if (!seg) throw new Error("capnp: a pointer to no segment");
    const kind = lo & 3;
    if (kind === 3) {
      out.writeUInt32LE(lo >>> 0, to * 8);
      out.writeUInt32LE(hi >>> 0, to * 8 + 4);
      return;
    }
    // A negative offset before the segment's start: Buffer's subarray would read its end.
    if (found.start < 0) throw new Error("capnp: a pointer out of bounds (before its segment)");
    if (kind === 0) {
      const dataWords = hi & 0xffff;
      const pointers = hi >>> 16;
      const size = dataWords + pointers;
      if ((found.start + size) * 8 > seg.length) throw new Error("capnp: a struct out of bounds");
      read(Math.max(1, size));
      if (size === 0) {
        // An empty struct: offset −1, as Cap'n Proto writes it (not a null pointer).
        out.writeUInt32LE(0xfffffffc, to * 8);
        out.writeUInt32LE(0, to * 8 + 4);
        return;
      }
      const at = allocate(size);
      seg.copy(out, at * 8, found.start * 8, (found.start + dataWords) * 8);
      point(to, at, 0, hi);
      for (let i = 0; i < pointers; i++)
        copyPointer(found.segment, found.start + dataWords + i, at + dataWords + i, depth + 1);
      return;
    }
    const elementSize = hi & 7;
    const count = hi >>> 3;
    if (elementSize === 7) {
      // Composite: a tag word (element count, each element's sizes), then the elements.
      if ((found.start + 1 + count) * 8 > seg.length)
        throw new Error("capnp: a list out of bounds");
      const tagLo = seg.readUInt32LE(found.start * 8);
      const tagHi = seg.readUInt32LE(found.start * 8 + 4);
      const elements = tagLo >>> 2;
      const dataWords = tagHi & 0xffff;
      const pointers = tagHi >>> 16;
      const each = dataWords + pointers;
      if (elements * each > count) throw new Error("capnp: a composite list larger than its words");
      read(1 + Math.max(elements * each, elements));
      const at = allocate(1 + elements * each);
      out.writeUInt32LE(tagLo, at * 8);
      out.writeUInt32LE(tagHi, at * 8 + 4);
      point(to, at, 1, ((elements * each) << 3) | 7);
      for (let e = 0; e < elements; e++) {
        const from = found.start + 1 + e * each;
        const into = at + 1 + e * each;
        seg.copy(out, into * 8, from * 8, (from + dataWords) * 8);
        for (let i = 0; i < pointers; i++)
          copyPointer(found.segment, from + dataWords + i, into + dataWords + i, depth + 1);
      }
      return;
    }
    if (elementSize === 6) {
      if ((found.start + count) * 8 > seg.length) throw new Error("capnp: a list out of bounds");
      read(count);
      const at = allocate(count);
      point(to, at, 1, hi);
      for (let i = 0; i < count; i++)
        copyPointer(found.segment, found.start + i, at + i, depth + 1);
      return;
    }
    const bytes = Math.ceil((count * /** @type {number} */ (ELEMENT_BITS[elementSize])) / 8);
    if (found.start * 8 + bytes > seg.length) throw new Error("capnp: a list out of bounds");
    read(Math.ceil(bytes / 8));
    let content = seg.subarray(found.start * 8, found.start * 8 + bytes);
    if (elementSize === 2 && content.includes(replace.marker)) {
      replace.seen?.(content);
      content = replaced(content, replace);
    }
    const at = allocate(Math.ceil(content.length / 8));
    content.copy(out, at * 8);
    point(to, at, 1, (content.length << 3) | elementSize);
  };

  copyPointer(0, 0, 0, 0);
  const framed = Buffer.alloc(8 + used * 8);
  framed.writeUInt32LE(0, 0);
  framed.writeUInt32LE(used, 4);
  out.copy(framed, 8, 0, used * 8);
  return framed;
}

/**
 * `content` with every slot's name replaced by its value, left to right, never inside a value
 * put in (a value that holds a slot's name stays as it is).
 * @param {Bytes} content
 * @param {Replace} replace
 * @returns {Bytes}
 */
export function replaced(content, replace) {
  /** @type {Bytes[]} */
  const parts = [];
  let from = 0;
  for (;;) {
    let best = -1;
    /** @type {[Bytes, Bytes] | undefined} */
    let slot;
    for (const pair of replace.slots) {
      const at = content.indexOf(pair[0], from);
      if (at !== -1 && (best === -1 || at < best)) {
        best = at;
        slot = pair;
      }
    }
    if (!slot) break;
    parts.push(content.subarray(from, best), slot[1]);
    from = best + slot[0].length;
  }
  if (parts.length === 0) return content;
  parts.push(content.subarray(from));
  return Buffer.concat(parts);
}
