// A UTF-8 text answer is not read as UTF-8 twice (src/codemode/request/api-response.ts): its
// bytes are searched one character per byte only, and its decoded text, which is their UTF-8
// reading, is searched as text. A credential spelled beyond Latin-1 in it (full-width,
// byte-swapped UTF-16) must still never reach the program; bodies whose text is not that reading
// (another charset, an invalid sequence, binary) keep the bytes' UTF-8 reading.
import { describe, expect, it } from "vitest";
import { utf8Work } from "../../../../../src/codemode/redaction/decoding/utf8-bytes-view";
import { SLICED_BODY, toApiResult } from "../../../../../src/codemode/request/api-response";

const secret = "tok_9f8e7d6c5b4a3z";
const fullWidth = (s: string) =>
  [...s].map((c) => String.fromCharCode(c.charCodeAt(0) - 0x20 + 0xff00)).join("");
const swapped = (s: string) =>
  [...s].map((c) => String.fromCharCode(c.charCodeAt(0) << 8)).join("");
const encode = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);
const forms: [string, string][] = [
  ["full-width letters", fullWidth(secret)],
  ["byte-swapped UTF-16", swapped(secret)],
  ["full-width letters joined by U+200B", fullWidth(secret).split("").join("\u200b")],
];
const sizes: [string, number][] = [
  ["small", 0],
  ["large (searched in slices)", SLICED_BODY],
];

/** What the program gets for the body, and how many bytes the UTF-8 reading moved past. */
async function answer(body: Uint8Array, type: string) {
  const before = utf8Work.positions;
  const result = await toApiResult(new Response(body, { headers: { "content-type": type } }), [
    secret,
  ]);
  return { result, read: utf8Work.positions - before };
}

describe("a UTF-8 text answer: its bytes are not read as UTF-8 (hostile)", () => {
  for (const [size, pad] of sizes)
    it.each(forms)(`cuts %s out of its text (${size})`, async (_, spelled) => {
      const text = `{"名前":"${"中文".repeat(1 + pad / 6)}","token":"${spelled}","c":"é"}`;
      for (const type of ["application/json; charset=utf-8", "application/json", "text/plain"]) {
        // A BOM too: decodeBody drops it, and the text is the reading all the same.
        for (const body of [encode(text), Uint8Array.from([0xef, 0xbb, 0xbf, ...encode(text)])]) {
          const { result, read } = await answer(body, type);
          expect(read).toBe(0);
          const got = typeof result.body === "string" ? result.body : JSON.stringify(result.body);
          expect(got).not.toContain(spelled);
          expect(got).toContain("[REDACTED]");
          expect(got).toContain("中文");
        }
      }
    });

  it.each(forms)("and %s beside the plain credential (its bytes cut first)", async (_, spelled) => {
    const body = encode(`{"中文":"${secret}","token":"${spelled}"}`);
    const { result, read } = await answer(body, "application/json; charset=utf-8");
    expect(read).toBe(0);
    const got = JSON.stringify(result.body);
    expect(got).not.toContain(secret);
    expect(got).not.toContain(spelled);
    expect(got).toContain('"中文":"[REDACTED]"');
  });
});

describe("answers whose bytes are still read as UTF-8", () => {
  for (const [size, pad] of sizes)
    it.each(forms)(`latin1-declared text holding UTF-8 of %s (${size})`, async (_, spelled) => {
      // The program gets mojibake it can encode back to these bytes and read as UTF-8.
      const body = encode(`${"é".repeat(pad / 2)} token: ${spelled} end`);
      const { result, read } = await answer(body, "text/plain; charset=iso-8859-1");
      expect(read).toBeGreaterThan(0);
      const text = result.body as string;
      expect(text).toContain("[REDACTED]");
      const reencoded = Uint8Array.from(text, (c) => {
        const code = c.charCodeAt(0);
        return code < 0x100 ? code : (CP1252.get(code) ?? 0x3f);
      });
      expect(decode(reencoded)).not.toContain(spelled);
      expect(text).not.toContain(spelled);
    });

  it.each(forms)("UTF-8 text with an invalid sequence, holding %s", async (_, spelled) => {
    const body = Uint8Array.from([...encode(`中文 ${spelled} `), 0x80, ...encode(" end")]);
    const { result, read } = await answer(body, "text/plain; charset=utf-8");
    expect(read).toBeGreaterThan(0);
    expect(result.body as string).not.toContain(spelled);
    expect(result.body as string).toContain("[REDACTED]");
  });

  // Why an invalid sequence keeps it: here each 0xAD (alone, not UTF-8) decodes to U+FFFD, which
  // the text search reads as a character between the letters, while the bytes' reading shows it
  // as a soft hyphen and drops it. The program would strip the U+FFFDs and have the credential.
  it("UTF-8 text with full-width letters between invalid 0xAD bytes", async () => {
    const letters = [...fullWidth(secret)].flatMap((c) => [...encode(c), 0xad]);
    const body = Uint8Array.from([...encode("中文 "), ...letters, ...encode(" end")]);
    const { result, read } = await answer(body, "text/plain; charset=utf-8");
    const text = result.body as string;
    expect(text.replace(/\ufffd/g, "").normalize("NFKC")).not.toContain(secret);
    expect(read).toBeGreaterThan(0);
  });

  it("a binary answer", async () => {
    const body = encode(`中文 ${fullWidth(secret)} end`);
    const { result, read } = await answer(body, "application/octet-stream");
    expect(read).toBeGreaterThan(0);
    expect(decode(result.body as Uint8Array)).not.toContain(fullWidth(secret));
  });
});

/** windows-1252's characters for 0x80–0x9F (what TextDecoder's latin1 reads there). */
const CP1252 = new Map(
  [
    ...new TextDecoder("windows-1252").decode(Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i)),
  ].map((c, i) => [c.charCodeAt(0), 0x80 + i] as const),
);
