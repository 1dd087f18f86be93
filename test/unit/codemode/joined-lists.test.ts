// Lists whose items are joined by more than one separator character (`115,,107`, `115 , , 107`),
// by `_`, `+` or `=` (what a `join()` or a string concatenation puts there), or by a long run of
// whitespace (an indented array, `115        107`): src/codemode/redaction/spellings/
// list-separators.ts and the lists view's token pass (lists-view.ts). Each spelling here went
// through unredacted before (hostile), and ordinary numbers joined the same way stay as they were.
import { describe, expect, it } from "vitest";
import { secretRedactor } from "../../../src/codemode/redaction/redaction";
import { listsView } from "../../../src/codemode/redaction/spellings/lists-view";

const SECRET = "tok_Live.9f8e/7d6c";
// Every byte two decimal digits in hex: read both ways (decimal first, hex in a second view).
const DIGITS_ONLY = "pay4bigchequeviayuppy";
const codes = (s: string) => [...s].map((c) => c.charCodeAt(0));
const hex = (s: string) => [...s].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0"));
const bin = (s: string) => [...s].map((c) => c.charCodeAt(0).toString(2).padStart(8, "0"));
const chars = (s: string) => [...s].map((c) => JSON.stringify(c));

const joiners = [",,", " , , ", " ,, ", "::", "--", "||", "//", ";;", "..", ", -"];
const singles = ["_", "+", "=", " + ", " = ", "__", "+="];
const spaces = ["       ", "        ", " ".repeat(40), "\t".repeat(8), ",\n        ", ",\n" + " ".repeat(24)];

describe("lists joined by more than one separator, by _ + =, or by long whitespace (hostile)", () => {
  const bodies: [string, string, string][] = [];
  for (const j of [...joiners, ...singles, ...spaces]) {
    const label = JSON.stringify(j);
    bodies.push([`char codes joined by ${label}`, SECRET, `x ${codes(SECRET).join(j)} y`]);
    bodies.push([`hex bytes joined by ${label}`, SECRET, `x ${hex(SECRET).join(j)} y`]);
    bodies.push([`all-digit hex joined by ${label}`, DIGITS_ONLY, hex(DIGITS_ONLY).join(j)]);
    bodies.push([`bits joined by ${label}`, SECRET, `[${bin(SECRET).join(j)}]`]);
    bodies.push([`characters joined by ${label}`, SECRET, chars(SECRET).join(j)]);
    bodies.push([
      `quoted codes joined by ${label}`,
      SECRET,
      codes(SECRET)
        .map((c) => `"${c}"`)
        .join(j),
    ]);
  }
  // After a long run of small numbers (the `12 12 12 …` cut: hex known up to the decimal end).
  bodies.push(["hex after small numbers, joined by ,,", SECRET, `${"12,,".repeat(50)}${hex(SECRET).join(",,")}`]);
  bodies.push(["hex after small numbers, joined by _", SECRET, `${"12_".repeat(50)}${hex(SECRET).join("_")}`]);
  // An array pretty-printed deep in a JSON document.
  const deep = { a: { b: { c: { d: { data: codes(SECRET) } } } } };
  bodies.push(["an indented array", SECRET, JSON.stringify(deep, null, 4)]);

  it.each(bodies)("cuts out %s", (_, secret, body) => {
    const out = secretRedactor([secret]).text(body);
    expect(out).toContain("[REDACTED]");
    expect(out).not.toContain(codes(secret).join(","));
  });

  it.each(bodies)("cuts out %s in slices as at once", async (_, secret, body) => {
    const redactor = secretRedactor([secret]);
    expect(await redactor.cleanTextInSlices(body, async () => {})).toBe(redactor.text(body));
  });
});

describe("ordinary text with the new joiners", () => {
  const ordinary = [
    '{"a_1_2":"1+2=3","on":"2026-12-06","size":"1x2","v":"1_000_000"}',
    '{"created_on":"2026-12-06T10:11:12.000Z","url":"/zones/12/dns_records?page=3&per_page=50"}',
    "1+2=3, 4+5=9, 6_7, 2026-12-06,,2026-12-07",
    "a,,,b,,,c 1,,,2,,,3,,,4,,,5,,,6,,,7,,,8",
  ];
  it.each(ordinary)("leaves %s alone", (body) => {
    expect(secretRedactor([SECRET]).text(body)).toBe(body);
  });
  // JSON with such numbers makes no list (eight numbers in a row joined this way would: as
  // three comma-joined dates already did before).
  it.each(ordinary.slice(0, 2))("makes no list of %s", (body) => {
    expect(listsView({ text: body, origin: null }).view).toBeUndefined();
  });
  // Three joiners are no separator (list-separators.ts says why): such a run stays unread.
  it("reads no run joined by three separators", () => {
    expect(listsView({ text: codes(SECRET).join(",,,"), origin: null }).view).toBeUndefined();
  });
});
