/**
 * cli/local-server/workerd-config/capnp-copy.mjs: a Cap'n Proto message copied without its schema, slots in its
 * byte lists replaced (how a kept workerd configuration gets a launch's values). Messages are
 * written and read back by an independent encoder and decoder (test/helpers/cli/capnp-tree.ts): the
 * copy must hold the same tree, in one segment, whatever segments and far pointers the original
 * used, with only the slots' bytes changed.
 */
import { describe, expect, it } from "vitest";
import {
  copyMessage,
  readSegments,
  replaced,
} from "../../../../cli/local-server/workerd-config/capnp-copy.mjs";
import { decode, encode, text, texts, type Struct } from "../../../helpers/cli/capnp-tree";

const marker = Buffer.from("SLOT");
const none = { marker, slots: [] as [Buffer, Buffer][] };
const slot = (name: string, value: string | Buffer): [Buffer, Buffer] => [
  Buffer.from(name),
  typeof value === "string" ? Buffer.from(value) : value,
];

/** A tree with every kind of pointer a workerd configuration uses. */
const sample = (): Struct => ({
  struct: ["0102030405060708", "ffeeddccbbaa9988"],
  pointers: [
    text("services"),
    {
      list: [
        { struct: ["0000000000000001"], pointers: [text("SLOT:a;"), null] },
        { struct: [], pointers: [text("unix:SLOT:dir;/runner-1.sock")] },
      ],
    },
    {
      dataWords: 1,
      pointerCount: 2,
      composite: [
        { struct: ["00000000000000aa"], pointers: [text("API_TOKEN"), text("SLOT:b;")] },
        {
          struct: ["00000000000000bb"],
          pointers: [text("MODE"), { bytes: new Uint8Array([1, 2, 3]) }],
        },
      ],
    },
    { bytes: Buffer.from("SLOT:pxy;") },
    null,
    { struct: [], pointers: [] },
  ],
});

describe("copyMessage", () => {
  it.each(["none", "single", "double"] as const)(
    "copies every pointer kind into one segment (far pointers: %s)",
    (far) => {
      const original = encode(sample(), far);
      if (far !== "none") expect(readSegments(original).length).toBeGreaterThan(1);
      const copy = copyMessage(original, none);
      expect(readSegments(copy)).toHaveLength(1);
      expect(decode(copy)).toEqual(decode(original));
      // The copy of a copy is the same bytes: one canonical layout.
      expect(copyMessage(copy, none).equals(copy)).toBe(true);
    },
  );

  it("puts each slot's value in its place, texts growing and shrinking, NULs kept", () => {
    const copy = copyMessage(encode(sample(), "double"), {
      marker,
      slots: [
        slot("SLOT:a;", "a much longer value than the slot's name, past a word or two"),
        slot("SLOT:b;", ""),
        slot("SLOT:dir;", "/tmp/cmm-1-abcdef"),
        slot("SLOT:pxy;", Buffer.from([0, 255, 7])),
      ],
    });
    const tree = decode(copy);
    expect(texts(tree)).toEqual([
      "services",
      "a much longer value than the slot's name, past a word or two",
      "unix:/tmp/cmm-1-abcdef/runner-1.sock",
      "API_TOKEN",
      "",
      "MODE",
      "\u0001\u0002\u0003",
      "\u0000\uFFFD\u0007",
    ]);
    // Text keeps its closing NUL; data (no NUL) gets none.
    const composite = tree.pointers[2] as { composite: Struct[] };
    expect([...(composite.composite[0]!.pointers[1] as { bytes: Uint8Array }).bytes]).toEqual([0]);
    expect([...(tree.pointers[3] as { bytes: Uint8Array }).bytes]).toEqual([0, 255, 7]);
    // Everything else as it was.
    expect(tree.struct).toEqual(sample().struct);
  });

  it("tells what it found and never replaces inside a value it put in", () => {
    const seen: string[] = [];
    const copy = copyMessage(encode(sample()), {
      marker,
      slots: [slot("SLOT:a;", "SLOT:b;"), slot("SLOT:b;", "x")],
      seen: (content: Buffer) => seen.push(content.toString().replace(/\0$/, "")),
    });
    expect(texts(decode(copy))).toContain("SLOT:b;");
    expect(texts(decode(copy))).toContain("x");
    expect(seen).toEqual(["SLOT:a;", "unix:SLOT:dir;/runner-1.sock", "SLOT:b;", "SLOT:pxy;"]);
  });

  it("refuses a message that is not one: truncated, a pointer past its segment, a loop", () => {
    const original = encode(sample());
    expect(() => copyMessage(original.subarray(0, 4), none)).toThrow(/not a message/);
    expect(() => copyMessage(original.subarray(0, original.length - 16), none)).toThrow(
      /segment runs past/,
    );
    const outOfBounds = Buffer.from(original);
    // The root pointer's offset far past the end.
    outOfBounds.writeUInt32LE((1_000 << 2) >>> 0, 8);
    expect(() => copyMessage(outOfBounds, none)).toThrow(/out of bounds/);
    // A struct whose only pointer points at the struct itself.
    const loop = Buffer.alloc(8 + 16);
    loop.writeUInt32LE(0, 0);
    loop.writeUInt32LE(2, 4);
    loop.writeUInt32LE(0, 8); // root: offset 0 → word 1
    loop.writeUInt32LE(1 << 16, 12); // 0 data words, 1 pointer
    loop.writeUInt32LE((-1 << 2) >>> 0, 16); // word 1: offset −1 → word 1 again
    loop.writeUInt32LE(1 << 16, 20);
    expect(() => copyMessage(loop, none)).toThrow(/nested too deep|reads more than it holds/);
  });
});

describe("replaced", () => {
  it("replaces the earliest slot first and leaves content without slots as the same buffer", () => {
    const content = Buffer.from("xSLOT:bb;ySLOT:b;z");
    expect(
      replaced(content, {
        marker,
        slots: [slot("SLOT:b;", "2"), slot("SLOT:bb;", "1")],
      }).toString(),
    ).toBe("x1y2z");
    const plain = Buffer.from("no slots here");
    expect(replaced(plain, { marker, slots: [slot("SLOT:b;", "2")] })).toBe(plain);
  });
});

/** A stream-framed message of one segment holding `words` (each a [lo, hi] pair). */
const message = (words: [number, number][]): Buffer => {
  const bytes = Buffer.alloc(8 + words.length * 8);
  bytes.writeUInt32LE(0, 0);
  bytes.writeUInt32LE(words.length, 4);
  words.forEach(([lo, hi], i) => {
    bytes.writeUInt32LE(lo >>> 0, 8 + i * 8);
    bytes.writeUInt32LE(hi >>> 0, 12 + i * 8);
  });
  return bytes;
};
/** A struct pointer: offset in words from the word after it, data words, pointers. */
const structPointer = (offset: number, data: number, pointers: number): [number, number] => [
  (offset << 2) >>> 0,
  (pointers << 16) | data,
];

describe("copyMessage on hostile messages (attack2)", () => {
  it("refuses pointers that share content instead of copying it again and again", () => {
    // 24 levels of a struct whose two pointers both point at the next level's struct: 48 words
    // that a walk without a bound copies 2^24 times (16M structs, 256 MiB); 64 levels, forever.
    const levels = 24;
    const words: [number, number][] = [structPointer(0, 0, 2)];
    for (let i = 0; i < levels; i++) {
      const last = i === levels - 1;
      words.push(last ? [0, 0] : structPointer(1, 0, 2), last ? [0, 0] : structPointer(0, 0, 2));
    }
    // The refusal is the bound: the walk counts each word it reads and throws once it has read
    // twice the message's words (no time asserted: a walk without the count copies, no throw).
    expect(() => copyMessage(message(words), none)).toThrow(/reads more than it holds/);
  });

  it("refuses a composite list of millions of zero-size elements in a few words", () => {
    // Root → a composite list of 0 words whose tag says 2^24 elements of 0 words each.
    const list: [number, number] = [(0 << 2) | 1, (0 << 3) | 7];
    const tag: [number, number] = [(1 << 24) << 2, 0];
    // As above: refused by the count of words read, not by the time it took.
    expect(() => copyMessage(message([list, tag]), none)).toThrow(/reads more than it holds/);
  });

  it("refuses a far pointer whose landing pad is a far pointer (followed forever before)", () => {
    // Word 0: far to word 0 of segment 0: itself.
    expect(() => copyMessage(message([[2, 0]]), none)).toThrow(/landing pad is another far/);
  });

  it("refuses a pointer before its segment's start instead of reading the segment's end", () => {
    // Word 1: a byte list of 8 bytes at offset −3 (before word 0); word 2 holds "SECRETS!".
    const before = message([
      structPointer(0, 0, 1),
      [((-3 << 2) | 1) >>> 0, (8 << 3) | 2],
      [0x52434553, 0x21535445],
    ]);
    expect(() => copyMessage(before, none)).toThrow(/out of bounds/);
  });

  it("still copies a message with many empty structs (each read counts one word)", () => {
    const list: [number, number] = [(0 << 2) | 1, (100 << 3) | 6];
    const empties = Array.from({ length: 100 }, (): [number, number] => [0xfffffffc, 0]);
    expect(() => copyMessage(message([list, ...empties]), none)).not.toThrow();
  });
});
