// Lists of two-digit numbers (src/codemode/redaction/spellings/lists-view.ts): `74 6f 6b …` can
// be decimal or hex. The lists view reads such a run as decimal at once and takes it back when
// hex reads further, and over a run of two-digit items it knows the hex reading without counting
// it (issue #40: `12 12 12 …` was read four times over). These are the spellings at the edge of
// that cut (hostile): hex that reads further only after eight all-digit bytes, after a run of
// small numbers, across `hexdump -C`'s line ends, in quotes, and a run read both ways.
import { describe, expect, it } from "vitest";
import { listsView } from "../../../../../src/codemode/redaction/spellings/lists-view";
import { redactorFor } from "../../../../helpers/redaction/redactor-for";

// Every byte of the first two is two decimal digits in hex (`70 61 79 34 …`): a decimal run too.
const DIGITS_ONLY = "pay4bigchequeviayuppy";
const DIGITS_FIRST = "pay4bigc_Live.9f8e/7d";
const LETTERS = "tok_Live.9f8e/7d6c";
const hex = (s: string) => [...s].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0"));
const codes = (s: string) => [...s].map((c) => c.charCodeAt(0));
const percent = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("");
const entities = (s: string) => [...s].map((c) => `&#${c.charCodeAt(0)};`).join("");
const utf16 = (s: string) => [...s].map((c) => `${c}\0`).join("");

/** `hexdump -C` of a text: offsets, 16 hex bytes a line, the text column between bars. */
function hexdump(s: string): string {
  const lines: string[] = [];
  for (let o = 0; o < s.length; o += 16) {
    const row = s.slice(o, o + 16);
    lines.push(`${o.toString(16).padStart(8, "0")}  ${hex(row).join(" ")}  |${row}|`);
  }
  return `${lines.join("\n")}\n`;
}

const small = (n: number) => "12 ".repeat(n);

describe("two-digit lists read as decimal or hex (hostile)", () => {
  const bodies: [string, string, string][] = [
    // Decimal reads the first eight bytes, hex all of them: the decimal reading is taken back.
    ["hex after eight all-digit bytes", DIGITS_FIRST, `x ${hex(DIGITS_FIRST).join(" ")} y`],
    ["the same, comma-joined", DIGITS_FIRST, `[${hex(DIGITS_FIRST).join(", ")}]`],
    ["the same, dash-joined", DIGITS_FIRST, hex(DIGITS_FIRST).join("-")],
    [
      "the same, quoted",
      DIGITS_FIRST,
      `[${hex(DIGITS_FIRST)
        .map((b) => `"${b}"`)
        .join(",")}]`,
    ],
    // Two-digit numbers first: hex is known up to where decimal ends, then counted on.
    ["hex after small numbers", LETTERS, `${small(40)}${hex(LETTERS).join(" ")}`],
    ["hex after a million small numbers", LETTERS, `${small(1_000_000)}${hex(LETTERS).join(" ")}`],
    [
      "quoted hex after quoted small numbers",
      LETTERS,
      `[${[...Array(20).fill("12"), ...hex(LETTERS)].map((b) => `"${b}"`).join(",")}]`,
    ],
    ["hex after small numbers and a colon", LETTERS, `${"12:".repeat(9)}${hex(LETTERS).join(":")}`],
    // A run read both ways: the second view reads it as hex.
    ["all-digit hex", DIGITS_ONLY, `data ${hex(DIGITS_ONLY).join(" ")} end`],
    [
      "all-digit hex inside small numbers",
      DIGITS_ONLY,
      `${small(5000)}${hex(DIGITS_ONLY).join(" ")} ${small(5000)}`,
    ],
    // `hexdump -C`: hex reads its line ends, a decimal reading stops at the first bar.
    ["a hexdump of all-digit bytes", DIGITS_ONLY, hexdump(DIGITS_ONLY)],
    ["a hexdump after small numbers", DIGITS_ONLY, `${small(20)}\n${hexdump(DIGITS_ONLY)}`],
    ["a hexdump, digits first", DIGITS_FIRST, hexdump(DIGITS_FIRST)],
    // A longer decimal number among small ones: decimal reads it, hex stops before it.
    ["char codes after small numbers", LETTERS, `${small(30)}${codes(LETTERS).join(" ")}`],
    ["char codes after a bar", LETTERS, `${small(30)}| ${codes(LETTERS).join(" ")}`],
    // What a reading produced is decoded again: a step runs only where the reading holds a `%`,
    // `&`, `\\` or `=`, and its NUL-free view only where it holds a NUL.
    [
      "char codes of a percent-encoding",
      LETTERS,
      `${small(30)}${codes(percent(LETTERS)).join(" ")}`,
    ],
    ["char codes of entities", LETTERS, `${small(30)}${codes(entities(LETTERS)).join(",")}`],
    ["UTF-16 bytes as char codes", LETTERS, `${small(30)}${codes(utf16(LETTERS)).join(",")}`],
    ["UTF-16 bytes in hex", DIGITS_ONLY, `${small(30)}${hex(utf16(DIGITS_ONLY)).join(" ")}`],
  ];

  it.each(bodies)("cuts out %s", (_, secret, body) => {
    const redactor = redactorFor(secret);
    const out = redactor.text(body);
    expect(out).toContain("[REDACTED]");
    expect(out.length).toBeLessThan(body.length);
  });

  it.each(bodies.filter(([, , body]) => body.length < 100_000))(
    "cuts out %s in slices as at once",
    async (_, secret, body) => {
      const redactor = redactorFor(secret);
      expect(await redactor.cleanTextInSlices(body, async () => {})).toBe(redactor.text(body));
    },
  );

  it("leaves small numbers alone", () => {
    const redactor = redactorFor(LETTERS);
    const body = `${small(1000)}6f 6b 12 34`;
    expect(redactor.text(body)).toBe(body);
  });
});

describe("the reading the lists view chooses for two-digit numbers", () => {
  /** The first view's text, whether the run was read both ways, and the second view's text. */
  const read = (text: string) => {
    const first = listsView({ text, origin: null });
    const second = first.ambiguous ? listsView({ text, origin: null }, true, first) : undefined;
    return [first.view?.text, first.ambiguous, second?.view?.text];
  };
  const chars = (list: number[]) => String.fromCharCode(...list);

  it("reads decimal, and hex in a second view, when hex reads no further", () => {
    expect(read(`x ${"12 ".repeat(9)}y`)).toEqual([
      `x ${chars(Array(9).fill(12))} y`,
      true,
      `x ${chars(Array(9).fill(0x12))} y`,
    ]);
  });

  // Hex known up to where decimal ends, then counted on: it reads further, so it is chosen.
  it("reads hex when it goes on after the decimal run", () => {
    expect(read(`${"12 ".repeat(9)}6f 6b`)).toEqual([
      `${chars(Array(9).fill(0x12))}ok`,
      false,
      undefined,
    ]);
  });

  // Hex takes `0x` bytes glued to a quoted item (`"12"0x6f`) as the next item: a differential
  // check against the lists view before this cut found the decimal reading kept there.
  it("reads hex when `0x` bytes follow the last quoted number at once", () => {
    const quoted = `${'"12",'.repeat(8)}"12"0x6f,0x6b`;
    expect(read(quoted)).toEqual([`${chars(Array(9).fill(0x12))}ok`, false, undefined]);
  });

  // Decimal was read into the view and is taken back.
  it("reads hex after eight all-digit bytes", () => {
    expect(read(hex(DIGITS_FIRST).join(" "))).toEqual([DIGITS_FIRST, false, undefined]);
  });

  // A decimal run stops at the bar; hex reads the line end and the next line.
  it("reads a hexdump of all-digit bytes as hex", () => {
    const [first, ambiguous] = read(hexdump(DIGITS_ONLY));
    expect(first).toContain(DIGITS_ONLY);
    expect(ambiguous).toBe(false);
  });
});
