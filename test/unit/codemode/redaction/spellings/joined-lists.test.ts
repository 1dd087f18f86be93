// Lists whose items are joined by two separator characters (`115,,107`, `115 , , 107`,
// `74::6f`): src/codemode/redaction/spellings/list-separators.ts. And hex runs that start inside
// a decimal run (`1 1 1 74 6f …`, `2026-12-06 70 61 …`): the lists view (lists-view.ts) read
// them as one decimal run and the hex run lost its first bytes, which doubled separators made
// likelier (a differential fuzz against main found it). Each spelling here went through
// unredacted before (hostile); ordinary numbers joined the same way stay as they were.
import { describe, expect, it } from "vitest";
import { listsView } from "../../../../../src/codemode/redaction/spellings/lists-view";
import { redactorFor } from "../../../../helpers/redaction/redactor-for";

const SECRET = "tok_Live.9f8e/7d6c";
// Every byte two decimal digits in hex: read both ways (decimal first, hex in a second view).
const DIGITS_ONLY = "pay4bigchequeviayuppy";
const codes = (s: string) => [...s].map((c) => c.charCodeAt(0));
const hex = (s: string) => [...s].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0"));
const bin = (s: string) => [...s].map((c) => c.charCodeAt(0).toString(2).padStart(8, "0"));
const chars = (s: string) => [...s].map((c) => JSON.stringify(c));

const joiners = [",,", " , , ", " ,, ", "::", "--", "||", "//", ";;", "..", ", -", ",\n,"];

describe("lists joined by two separators (hostile)", () => {
  const bodies: [string, string, string][] = [];
  for (const j of joiners) {
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
  bodies.push([
    "hex after small numbers, joined by ,,",
    SECRET,
    `${"12,,".repeat(50)}${hex(SECRET).join(",,")}`,
  ]);
  // A hex run that starts inside a decimal run: its first bytes were read as decimal.
  bodies.push([
    "hex after one-digit numbers",
    SECRET,
    `${"1 ".repeat(20)}${hex(SECRET).join(" ")}`,
  ]);
  bodies.push(["hex after a 3-digit number", SECRET, `123 ${hex(SECRET).join(" ")}`]);
  bodies.push(["hex after two one-digit numbers", SECRET, `1 1 ${hex(SECRET).join(" ")}`]);
  bodies.push([
    "all-digit hex after a date",
    DIGITS_ONLY,
    `x 2026-12-06 ${hex(DIGITS_ONLY).join(", ")}`,
  ]);
  bodies.push([
    "all-digit hex after a date, bars",
    DIGITS_ONLY,
    `2026,,12 ${hex(DIGITS_ONLY).join(" |")}`,
  ]);

  it.each(bodies)("cuts out %s", (_, secret, body) => {
    const out = redactorFor(secret).text(body);
    expect(out).toContain("[REDACTED]");
  });

  it.each(bodies)("cuts out %s in slices as at once", async (_, secret, body) => {
    const redactor = redactorFor(secret);
    expect(await redactor.cleanTextInSlices(body, async () => {})).toBe(redactor.text(body));
  });

  // Decimal codes ending in two-digit codes, then hex: the first view keeps the decimal run.
  it("keeps a decimal copy whose run goes on in hex", () => {
    const body = `${codes(SECRET).join(" ")} 6f 6b 5f 4c 69 76 65 2e`;
    expect(redactorFor(SECRET).text(body)).toContain("[REDACTED]");
  });
});

describe("ordinary text with doubled separators", () => {
  const ordinary = [
    '{"a_1_2":"1+2=3","on":"2026-12-06","size":"1x2","v":"1_000_000"}',
    '{"created_on":"2026-12-06T10:11:12.000Z","url":"/zones/12/dns_records?page=3&per_page=50"}',
    "1,,2 and 2026-12-06",
    "a,,,b,,,c 1,,,2,,,3,,,4,,,5,,,6,,,7,,,8",
  ];
  it.each(ordinary)("leaves %s alone", (body) => {
    expect(redactorFor(SECRET).text(body)).toBe(body);
  });
  it.each(ordinary.slice(0, 3))("makes no list of %s", (body) => {
    expect(listsView({ text: body, origin: null }).view).toBeUndefined();
  });
  // Three joiners are no separator (list-separators.ts says why): such a run stays unread.
  it("reads no run joined by three separators", () => {
    expect(listsView({ text: codes(SECRET).join(",,,"), origin: null }).view).toBeUndefined();
  });
});
