// The run-decoded view (src/codemode/redaction/decoding/run-decoded-view.ts): long runs of base64,
// base64url, hex or base32 that decode to text are read as that text (a third layer under a run
// encoding), a copy cut out of its run alone; runs that decode to bytes other than text, and
// short runs, make no view.
import { describe, expect, it } from "vitest";
import { originalRange } from "../../../../../src/codemode/redaction/decoding/decoded-views";
import { runDecodedViewInSlices } from "../../../../../src/codemode/redaction/decoding/run-decoded-view";
import { secretRedactor } from "../../../../../src/codemode/redaction/redaction";
import { runToEnd } from "../../../../../src/codemode/redaction/slices";
import type { View } from "../../../../../src/codemode/redaction/view-builder";

const view = (text: string) => runToEnd(runDecodedViewInSlices({ text, origin: null }));
const hex = (t: string) =>
  [...t].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const base32 = (t: string, alphabet = BASE32) => {
  let [out, bits, value] = ["", 0, 0];
  for (const c of t) {
    value = ((value << 8) | c.charCodeAt(0)) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + alphabet[(value << (5 - bits)) & 31] : out;
};
/** base32hex (RFC 4648 §7). */
const base32hex = (t: string) => base32(t, "0123456789ABCDEFGHIJKLMNOPQRSTUV");
const SECRET = "tok_Live.9f8e/7d6c-5b4a";
const PERCENT = [...SECRET].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("");
const TEXT = "percent-encoded: %74%6F%6B%5F%4C%69%76%65 and more text after it";

describe("the run-decoded view", () => {
  it.each([
    ["base64", btoa(TEXT)],
    ["base64url", btoa(TEXT).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")],
    ["hex", hex(TEXT)],
    ["HEX", hex(TEXT).toUpperCase()],
    ["base32", base32(TEXT)],
    ["base32hex", base32hex(TEXT)],
    ["base32hex in lower case", base32hex(TEXT).toLowerCase()],
  ])("reads a run of %s that decodes to text", (_name, run) => {
    expect(view(`{"a":"${run}","b":1}`)?.text).toBe(TEXT);
  });

  it("cuts a copy out of its run alone: the characters holding its bytes", () => {
    const run = btoa(TEXT);
    const text = `x ${run} y`;
    const read = view(text) as View;
    const at = read.text.indexOf("%74");
    const [start, end] = originalRange(read, at, at + "%74%6F%6B".length);
    // 9 bytes from byte 17: base64 characters 22 to 36 of the run (bits of bytes 16 and 26
    // share the characters at each end).
    expect([start, end]).toEqual([2 + Math.floor((17 * 4) / 3), 2 + Math.ceil((26 * 4) / 3)]);
    expect(start).toBeGreaterThan(2);
    expect(end).toBeLessThan(2 + run.length);
  });

  it("maps a copy far into a run of one-character lines to its characters", () => {
    // A line break after every character (`\n` escapes in a JSON string): the map keeps a
    // position per 256 characters and walks past the breaks from there.
    const long = `${"lorem ipsum dolor sit amet, ".repeat(40)}${TEXT}`;
    const run = [...btoa(long)].join("\\n");
    const text = `{"d":"${run}"}`;
    const read = view(text) as View;
    const at = read.text.indexOf("%74");
    const [start, end] = originalRange(read, at, at + "%74%6F%6B".length);
    const characters = [...text.matchAll(/[A-Za-z0-9+/=]/g)]
      .map((m) => m.index)
      .filter((i) => i >= 6 && text[i - 1] !== "\\");
    expect(start).toBe(characters[Math.floor((at * 4) / 3)]);
    expect(end).toBe(characters[Math.ceil(((at + 9) * 4) / 3) - 1]! + 1);
  });

  it("reads base64 in lines, also with `\\n` escapes between them (a JSON string)", () => {
    const long = btoa(TEXT.repeat(3));
    const lines = long.replace(/(.{60})/g, "$1\n");
    expect(view(lines)?.text).toBe(TEXT.repeat(3));
    expect(view(JSON.stringify(lines))?.text).toBe(TEXT.repeat(3));
  });

  it("reads a run glued onto other letters of its alphabet, at its end", () => {
    const glued = `${"abcdefghij".repeat(6)}${btoa(TEXT)}`;
    expect(view(glued)?.text).toContain("%74%6F%6B%5F%4C");
  });

  it("makes no view of runs that decode to bytes other than text, or of short runs", () => {
    const random = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7919 + (i >> 3) * 31) & 0xff);
    const blob = btoa(String.fromCharCode(...random));
    const sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const prose = "The quick brown fox jumps over the lazy dog ".repeat(20);
    const ids = "getUserAccountSettingsForTheCurrentOrganization/v2/items";
    for (const text of [blob, sha, prose, ids, btoa("short text"), `${blob}\n${sha}`])
      expect(view(text)).toBeUndefined();
  });

  it("lets the redaction read three layers: base64 of base64 of %XX, cut from its run", () => {
    const secret = "tok_Live.9f8e/7d6c-5b4a";
    const percent = [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("");
    const redactor = secretRedactor(Object.freeze([secret]));
    const out = redactor.text(`before ${btoa(btoa(percent))} after`);
    expect(out).toMatch(/^before \[REDACTED\]\S{0,8} after$/);
  });

  it("reads runs of 20 characters: an 8-character secret's base64 of base64 of base64", () => {
    // 24 characters, and the 12-character secret's 32: shorter than the 40 once read.
    expect(view(`{"a":"${btoa("short text here")}"}`)?.text).toBe("short text here");
    for (const secret of ["k9Xq2wLp", "k9Xq2wLpA7zR"]) {
      const run = btoa(btoa(btoa(secret)));
      const out = secretRedactor(Object.freeze([secret])).text(`{"data":"${run}"}`);
      expect(out).not.toContain(run);
      expect(out).toContain("[REDACTED]");
    }
  });

  // Each leaked whole before base32hex was a run encoding this view reads, and before four run
  // encodings were read one inside the other (two were).
  it.each([
    ["base32hex of base64 of %XX", base32hex(btoa(PERCENT))],
    ["base32hex (lower case) of base64 of %XX", base32hex(btoa(PERCENT)).toLowerCase()],
    ["base32hex of base64 of base64", base32hex(btoa(btoa(SECRET)))],
    ["base64 of base64 of base64 of base64 of %XX", btoa(btoa(btoa(btoa(PERCENT))))],
    ["hex of base64 of base64 of base64 of %XX", hex(btoa(btoa(btoa(PERCENT))))],
    ["five base64 layers over the secret", btoa(btoa(btoa(btoa(btoa(SECRET)))))],
  ])("lets the redaction read %s", (_name, run) => {
    const out = secretRedactor(Object.freeze([SECRET])).text(`before ${run} after`);
    expect(out).not.toContain(run);
    expect(out).toMatch(/^before \S*\[REDACTED\]\S* after$/);
  });

  // Leaked whole before runs cut into pieces were read joined (each piece decoded at its own
  // alignment: the bytes of the copy did not line up across a cut).
  it.each([39, 30, 21])(
    "reads a run cut into %i-character pieces joined by spaces, and cuts the copy from them",
    (width) => {
      const run = btoa(btoa(PERCENT));
      const cut = run.match(new RegExp(`.{1,${width}}`, "g"))!.join(" ");
      const text = `{"data":"${cut}","next":"a b"}`;
      const out = secretRedactor(Object.freeze([SECRET])).text(text);
      expect(out).toContain("[REDACTED]");
      expect(out).toMatch(/^\{"data":"[^"]*\[REDACTED\][^"]*","next":"a b"\}$/);
      // The joined reading is in the view, beside each piece's own.
      expect(view(`x ${run.match(/.{1,39}/g)!.join(" ")} y`)?.text).toContain(btoa(PERCENT));
    },
  );

  it("joins the pieces of a cut run once: a piece inside a cut starts no join of its own", () => {
    // 200 pieces of 40 characters, each text on its own: read once each and once joined, the
    // view is twice the decoded text; a join from every piece to the end made 100 times that.
    const prose = "The quick brown fox jumps over the lazy dog. ".repeat(150);
    const pieces = btoa(prose).match(/.{1,40}/g)!;
    const read = view(pieces.join(" ")) as View;
    expect(read.text).toContain(prose);
    expect(read.text.length).toBeLessThan(2.1 * prose.length);
  });

  // attack9: each piece read on its own and the whole run read too made a view 1.5 times the
  // text, so a body of cut runs of cut runs, four levels deep, was read as ~6 times its length.
  it.each([40, 39, 44])(
    "keeps no piece's reading the joined one holds: %i-character pieces, four levels deep",
    (width) => {
      const prose = "The quick brown fox jumps over the lazy dog. ".repeat(150);
      const cut = (t: string) =>
        btoa(t)
          .match(new RegExp(`.{1,${width}}`, "g"))!
          .join(" ");
      const read = view(cut(prose)) as View;
      expect(read.text).toContain(prose);
      expect(read.text.length).toBeLessThan(1.05 * prose.length);
      let text = cut(cut(cut(cut(prose))));
      for (let level = 0; level < 4; level++) {
        const next = view(text) as View;
        expect(next.text.length).toBeLessThan(0.8 * text.length);
        text = next.text;
      }
      expect(text).toContain(prose);
    },
  );
});
