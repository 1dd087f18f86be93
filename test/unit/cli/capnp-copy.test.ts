/**
 * cli/local-server/workerd-config/capnp-copy.mjs: a Cap'n Proto message copied without its schema, slots in its
 * byte lists replaced (how a kept workerd configuration gets a launch's values). Messages are
 * written and read back by an independent encoder and decoder (test/helpers/capnp-tree.ts): the
 * copy must hold the same tree, in one segment, whatever segments and far pointers the original
 * used, with only the slots' bytes changed.
 */
import { describe, expect, it } from "vitest";
import {
  copyMessage,
  readSegments,
  replaced,
} from "../../../cli/local-server/workerd-config/capnp-copy.mjs";
import { decode, encode, text, texts, type Struct } from "../../helpers/capnp-tree";

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
    expect(() => copyMessage(loop, none)).toThrow(/nested too deep/);
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
