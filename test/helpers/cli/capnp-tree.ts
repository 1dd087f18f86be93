/**
 * Cap'n Proto messages for tests of cli/local-server/workerd-config/capnp-copy.mjs, written and read here
 * independently of it: `encode` lays a tree out in one or more segments (with far pointers, single
 * and double landing pads, when asked), `decode` reads any message back into the same tree. A
 * copy is right when `decode(copy)` equals `decode(original)` (with the expected texts changed).
 */

/** A struct: its data words (hex, 16 digits each, bytes in memory order) and its pointers. */
export type Struct = { struct: string[]; pointers: Tree[] };
/** A list of bytes (text with its NUL, or data). */
export type Bytes = { bytes: Uint8Array };
/** A list of pointers. */
export type Pointers = { list: Tree[] };
/** A composite list: structs of the same sizes. */
export type Composite = { composite: Struct[]; dataWords: number; pointerCount: number };
export type Tree = null | Struct | Bytes | Pointers | Composite;

/** Text as Cap'n Proto holds it: UTF-8 with a closing NUL. */
export const text = (value: string): Bytes => ({
  bytes: new Uint8Array([...Buffer.from(value, "utf8"), 0]),
});

type Far = "none" | "single" | "double";

/**
 * The message of `root` (a struct), stream-framed. `far`: every pointer of the root struct
 * reaches its content through a landing pad in a second segment (content in a third for
 * "double"), as a message built in several allocations is laid out.
 */
export function encode(root: Struct, far: Far = "none"): Buffer {
  const segments: number[][] = [[], [], []]; // words as [lo, hi] pairs flattened
  const alloc = (segment: number, words: number) => {
    const seg = segments[segment]!;
    const at = seg.length / 2;
    for (let i = 0; i < words; i++) seg.push(0, 0);
    return at;
  };
  const set = (segment: number, word: number, lo: number, hi: number) => {
    segments[segment]![word * 2] = lo >>> 0;
    segments[segment]![word * 2 + 1] = hi >>> 0;
  };
  const near = (kind: number, from: number, to: number) => (((to - from - 1) << 2) | kind) >>> 0;

  // Lays out `tree` in `segment`; returns [kind, start, hi] of the pointer that describes it.
  const layout = (tree: Exclude<Tree, null>, segment: number): [number, number, number] => {
    if ("struct" in tree) {
      const at = alloc(segment, tree.struct.length + tree.pointers.length);
      tree.struct.forEach((hex, i) => {
        const b = Buffer.from(hex.padStart(16, "0"), "hex");
        set(segment, at + i, b.readUInt32LE(0), b.readUInt32LE(4));
      });
      tree.pointers.forEach((p, i) => place(p, segment, at + tree.struct.length + i, "none"));
      return [0, at, (tree.pointers.length << 16) | tree.struct.length];
    }
    if ("bytes" in tree) {
      const words = Math.ceil(tree.bytes.length / 8);
      const at = alloc(segment, words);
      const b = Buffer.alloc(words * 8);
      b.set(tree.bytes);
      for (let i = 0; i < words; i++)
        set(segment, at + i, b.readUInt32LE(i * 8), b.readUInt32LE(i * 8 + 4));
      return [1, at, (tree.bytes.length << 3) | 2];
    }
    if ("list" in tree) {
      const at = alloc(segment, tree.list.length);
      tree.list.forEach((p, i) => place(p, segment, at + i, "none"));
      return [1, at, (tree.list.length << 3) | 6];
    }
    const each = tree.dataWords + tree.pointerCount;
    const at = alloc(segment, 1 + tree.composite.length * each);
    set(
      segment,
      at,
      (tree.composite.length << 2) >>> 0,
      (tree.pointerCount << 16) | tree.dataWords,
    );
    tree.composite.forEach((s, e) => {
      const base = at + 1 + e * each;
      s.struct.forEach((hex, i) => {
        const b = Buffer.from(hex.padStart(16, "0"), "hex");
        set(segment, base + i, b.readUInt32LE(0), b.readUInt32LE(4));
      });
      s.pointers.forEach((p, i) => place(p, segment, base + tree.dataWords + i, "none"));
    });
    return [1, at, ((tree.composite.length * each) << 3) | 7];
  };

  const place = (tree: Tree, segment: number, word: number, how: Far) => {
    if (tree === null) return;
    if (how === "none") {
      const [kind, start, hi] = layout(tree, segment);
      set(segment, word, near(kind, word, start), hi);
      return;
    }
    if (how === "single") {
      // Landing pad in segment 1, just before its content.
      const pad = alloc(1, 1);
      const [kind, start, hi] = layout(tree, 1);
      set(1, pad, near(kind, pad, start), hi);
      set(segment, word, ((pad << 3) | 2) >>> 0, 1);
      return;
    }
    // Double: content in segment 2, the pad (far pointer + tag) in segment 1.
    const [kind, start, hi] = layout(tree, 2);
    const pad = alloc(1, 2);
    set(1, pad, ((start << 3) | 2) >>> 0, 2);
    set(1, pad + 1, kind, hi);
    set(segment, word, ((pad << 3) | 6) >>> 0, 1);
  };

  const rootAt = alloc(0, 1);
  const at = alloc(0, root.struct.length + root.pointers.length);
  root.struct.forEach((hex, i) => {
    const b = Buffer.from(hex.padStart(16, "0"), "hex");
    set(0, at + i, b.readUInt32LE(0), b.readUInt32LE(4));
  });
  root.pointers.forEach((p, i) => place(p, 0, at + root.struct.length + i, far));
  set(0, rootAt, near(0, rootAt, at), (root.pointers.length << 16) | root.struct.length);

  const used = segments.filter((s, i) => i === 0 || s.length > 0);
  const tableWords = Math.ceil((4 + 4 * used.length) / 8);
  const out = Buffer.alloc(tableWords * 8 + used.reduce((n, s) => n + s.length * 4, 0));
  out.writeUInt32LE(used.length - 1, 0);
  used.forEach((s, i) => out.writeUInt32LE(s.length / 2, 4 + 4 * i));
  let offset = tableWords * 8;
  for (const s of used)
    for (const v of s) {
      out.writeUInt32LE(v, offset);
      offset += 4;
    }
  return out;
}

/** The tree of a stream-framed message (any segments, far pointers resolved). */
export function decode(message: Uint8Array): Struct {
  const buffer = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const count = buffer.readUInt32LE(0) + 1;
  const tableWords = Math.ceil((4 + 4 * count) / 8);
  const segments: ReturnType<typeof Buffer.from>[] = [];
  let at = tableWords * 8;
  for (let i = 0; i < count; i++) {
    const size = buffer.readUInt32LE(4 + 4 * i) * 8;
    segments.push(buffer.subarray(at, at + size));
    at += size;
  }
  const word = (s: number, w: number) =>
    [segments[s]!.readUInt32LE(w * 8), segments[s]!.readUInt32LE(w * 8 + 4)] as const;
  const hex = (s: number, w: number) => segments[s]!.subarray(w * 8, w * 8 + 8).toString("hex");

  const read = (s: number, w: number): Tree => {
    let [lo, hi] = word(s, w);
    if (lo === 0 && hi === 0) return null;
    let start: number;
    if ((lo & 3) === 2) {
      const pad = lo >>> 3;
      const padSeg = hi;
      if ((lo & 4) === 0) return read(padSeg, pad);
      const [farLo, farHi] = word(padSeg, pad);
      [lo, hi] = word(padSeg, pad + 1);
      s = farHi;
      start = farLo >>> 3;
    } else start = w + 1 + (lo >> 2);
    if ((lo & 3) === 0) {
      const dw = hi & 0xffff;
      const pc = hi >>> 16;
      return {
        struct: Array.from({ length: dw }, (_, i) => hex(s, start + i)),
        pointers: Array.from({ length: pc }, (_, i) => read(s, start + dw + i)),
      };
    }
    const size = hi & 7;
    const n = hi >>> 3;
    if (size === 2)
      return { bytes: new Uint8Array(segments[s]!.subarray(start * 8, start * 8 + n)) };
    if (size === 6) return { list: Array.from({ length: n }, (_, i) => read(s, start + i)) };
    if (size === 7) {
      const [tagLo, tagHi] = word(s, start);
      const elements = tagLo >>> 2;
      const dw = tagHi & 0xffff;
      const pc = tagHi >>> 16;
      return {
        dataWords: dw,
        pointerCount: pc,
        composite: Array.from({ length: elements }, (_element, e) => {
          const base = start + 1 + e * (dw + pc);
          return {
            struct: Array.from({ length: dw }, (_, i) => hex(s, base + i)),
            pointers: Array.from({ length: pc }, (_, i) => read(s, base + dw + i)),
          };
        }),
      };
    }
    throw new Error(`decode: list element size ${size} not used in these tests`);
  };
  const root = read(0, 0);
  if (!root || !("struct" in root)) throw new Error("decode: the root is not a struct");
  return root;
}

/** Every byte list of a tree as text (without its NUL), in order. */
export function texts(tree: Tree): string[] {
  if (tree === null) return [];
  if ("bytes" in tree) return [Buffer.from(tree.bytes).toString("utf8").replace(/\0$/, "")];
  if ("struct" in tree) return tree.pointers.flatMap(texts);
  if ("list" in tree) return tree.list.flatMap(texts);
  return tree.composite.flatMap(texts);
}
