// The notation views of issue #41's third review (octal bytes, code points, od -c, xxd -e, Morse):
// what each reads, that ordinary text makes none, and that their work stays linear in the body
// (counted in positions looked at, never timed).
import { describe, expect, it } from "vitest";
import { charDumpView } from "../../../../../src/codemode/redaction/spellings/char-dump-view";
import { codePointView } from "../../../../../src/codemode/redaction/spellings/code-point-view";
import { decodeWork } from "../../../../../src/codemode/redaction/decoding/decode-step";
import { notationWork } from "../../../../../src/codemode/redaction/spellings/item-runs";
import { morseView } from "../../../../../src/codemode/redaction/spellings/morse-view";
import {
  notationViews,
  notationViewsInSlices,
} from "../../../../../src/codemode/redaction/spellings/notation-views";
import { PAUSE, SLICE_POSITIONS, type Sliced } from "../../../../../src/codemode/redaction/slices";
import { octalViews } from "../../../../../src/codemode/redaction/spellings/octal-view";
import { secretRedactor } from "../../../../../src/codemode/redaction/redaction";
import type { View } from "../../../../../src/codemode/redaction/view-builder";
import { xxdLittleEndianViews } from "../../../../../src/codemode/redaction/spellings/xxd-little-endian-view";
import { charDump, xxdE } from "../../../../helpers/redaction/credential-echoes";
import { noiseText } from "../../../../helpers/redaction/seeded-noise";

const base = (text: string): View => ({ text, origin: null });
const SECRET = "tok_Live.9f8e/7d6c-5b4a";
const secrets = Object.freeze([`Bearer ${SECRET}`, SECRET]);
const bytes = (t: string) => [...new TextEncoder().encode(t)];

describe("what each notation view reads", () => {
  it("octal numbers in a run, octal escapes and 0o numbers alone", () => {
    const [, numbers] = octalViews(
      base(
        `x ${bytes(SECRET)
          .map((b) => b.toString(8))
          .join(" ")} y`,
      ),
    );
    expect(numbers?.text).toBe(`x ${SECRET} y`);
    const [escapes] = octalViews(base("tok\\137Live\\056"));
    expect(escapes?.text).toBe("tok_Live.");
    // Seven numbers are no run: a list of small numbers is ordinary data.
    expect(octalViews(base("164 157 153 137 114 151 166"))[1]).toBeUndefined();
    // A number that is part of a longer one is no item.
    expect(octalViews(base("1640 157 153 137 114 151 166 145"))[1]).toBeUndefined();
  });

  it("code points with or without padding, separated or not, and \\x{…}", () => {
    expect(codePointView(base("U+0074 U+006F, U+6b\\x{5f}U+4C"))?.text).toBe("tok_L");
    // A cut-out copy maps back to its notation: the view's origin spans the items.
    const view = codePointView(base("a U+0074 U+006F b"))!;
    expect(view.origin!(2, false)).toBe(2);
    expect(view.origin!(4, true)).toBe(15);
    expect(codePointView(base("U+7 is not one"))).toBeUndefined();
  });

  it("od -c lines joined, also with other lines between", () => {
    const dump = charDump(`Authorization: Bearer ${SECRET}\r\n`, 8)
      .split("\n")
      .join("\n[log] other line\n");
    expect(charDumpView(base(dump))?.text).toContain(`Bearer ${SECRET}\r\n`);
  });

  it("xxd -e groups in memory order, and its text columns joined", () => {
    const [bytesView, columns] = xxdLittleEndianViews(
      base(xxdE(`Authorization: Bearer ${SECRET}\r\n`)),
    );
    expect(bytesView?.text).toContain(`Bearer ${SECRET}\r\n`);
    expect(columns?.text).toContain(`Bearer ${SECRET}..`);
  });

  it("Morse runs of at least 8 codes, in upper case", () => {
    expect(morseView(base("- --- -.- ..--.- .-.. .. ...- . / .----"))?.text).toBe("TOK_LIVE1");
    expect(morseView(base("- --- -.- ..--.- .-.. .. ...-"))).toBeUndefined();
  });

  it("makes no view of ordinary text", () => {
    const ordinary = JSON.stringify({
      id: 1234,
      items: [100, 200, 300],
      note: "see https://x.test/a-b/c.d -- done... e.g. 12:30 - 13:00",
      unicode: "U+ is a prefix; \\x is an escape",
    });
    expect([...notationViews(base(ordinary))]).toEqual([]);
  });
});

/** Positions the notation passes and the decoding steps looked at for one text, per character. */
function workPerCharacter(text: string): { notation: number; decode: number } {
  const [n, d] = [notationWork.positions, decodeWork.positions];
  secretRedactor(secrets).cleanText(text);
  return {
    notation: (notationWork.positions - n) / text.length,
    decode: (decodeWork.positions - d) / text.length,
  };
}

describe("notation work per character", () => {
  // Bodies a program can make an echoing API return: one long run, runs one item short of
  // being read (a naive reader restarting at every item would reread each run), separators
  // that run on, items that are almost items.
  it.each([
    "164 ",
    "164 157 153 137 114 151 166 x ",
    "\\1",
    "\\164\\",
    "0o1 ",
    "U+74",
    "U+74      ",
    "U+7 ",
    "\\x{74}",
    "- --- -.- ",
    ". - . - . - . x ",
    "---------- ",
    "164" + " ".repeat(50),
  ])("is bounded and does not grow with the body for %j repeated", (unit) => {
    const small = workPerCharacter(unit.repeat(Math.ceil(20_000 / unit.length)));
    const large = workPerCharacter(unit.repeat(Math.ceil(400_000 / unit.length)));
    // Each notation pass looks at a position once or twice (a separator after a run's last
    // item is looked at again by the next search), and a text has few views that read notations.
    expect(large.notation).toBeLessThan(12);
    expect(large.notation).toBeLessThan(small.notation * 1.1 + 0.1);
    expect(large.decode).toBeLessThan(small.decode * 1.1 + 0.2);
  });
});

describe("notation views in slices", () => {
  // One run of octal numbers as long as the body (4 MB of `164 ` would be a million items):
  // read in one turn, it held the host's thread for the whole run (issue #40).
  it.each(["164 ", "\\164", "U+74 ", "- --- "])(
    "pauses within a long run of %j, every slice of positions",
    (unit) => {
      const text = unit.repeat(Math.ceil(400_000 / unit.length));
      let [pauses, views, most, since] = [0, 0, 0, notationWork.positions];
      for (const step of notationViewsInSlices(base(text))) {
        if (step === PAUSE) {
          most = Math.max(most, notationWork.positions - since);
          since = notationWork.positions;
          pauses++;
        } else views++;
      }
      expect(views).toBeGreaterThan(0);
      expect(pauses).toBeGreaterThanOrEqual(Math.floor(text.length / SLICE_POSITIONS) - 1);
      expect(most).toBeLessThanOrEqual(SLICE_POSITIONS + 64);
    },
  );
});

describe("a notation view's compact view made of what `narrow` keeps (issue #40)", () => {
  // Random bytes hold chance octal escapes: the compact view of their octal view was made of all
  // of it; spelled-views.ts now passes its cut to what the notation changed
  // (decoding/changed-segments.ts), and the full-width copy the octal bytes spell is still read.
  const fullWidth = [...SECRET].map((c) => String.fromCharCode(c.charCodeAt(0) - 0x20 + 0xff00));
  const octal = bytes(fullWidth.join(""))
    .map((b) => `\\${b.toString(8)}`)
    .join("");
  it("compacts only the part narrow keeps, and the copy reads there", () => {
    const text = `${"ÿ".repeat(5_000)} ${octal} ${"ÿ".repeat(5_000)}`;
    let narrowed = 0;
    const narrow = function* (view: View): Sliced<View> {
      // A pass that pauses like the real cut.
      if (view.text.length > SLICE_POSITIONS) yield PAUSE;
      narrowed++;
      const at = view.text.indexOf(" ");
      const end = view.text.lastIndexOf(" ") + 1;
      const origin = (i: number, last: boolean) => view.origin!(i + at, last);
      return { text: view.text.slice(at, end), origin };
    };
    const made = [...notationViewsInSlices(base(text), narrow)].filter(
      (view): view is View => view !== PAUSE,
    );
    expect(narrowed).toBe(1);
    const compact = made.find((view) => view.text.includes(SECRET))!;
    expect(compact.text.length).toBeLessThan(100);
    const at = compact.text.indexOf(SECRET);
    expect(text.slice(compact.origin!(at, false), compact.origin!(at + SECRET.length, true))).toBe(
      octal,
    );
  });

  it("cuts the copy out of random-looking bytes around it", () => {
    const redactor = secretRedactor(secrets);
    const noise = noiseText(60_000, 3);
    const body = `${noise} ${octal} ${noise}`;
    const out = redactor.text(body);
    expect(out).not.toContain(octal);
    expect(out).toContain("[REDACTED]");
  });
});
