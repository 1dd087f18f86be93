// Credentials only the byte view's compaction reads, inside a CJK answer (issue #40's CJK row):
// a UTF-8 text answer is searched as bytes (one character per byte) and as its decoded text, and a
// cut that skips a byte reading because "the text's views read the same characters" must not
// lose these. windows-1252 shows a continuation byte of a sequence as `‚`, which stops it being
// read as UTF-8, and the next one as a Latin-1 character that folds to ASCII (`²` → `2`): so `ゲ`
// (E3 82 B2) compacts to `ã‚2` in the bytes' view and stays `ゲ` in every view of the text.
import { describe, expect, it } from "vitest";
import { SLICED_BODY, toApiResult } from "../../../../../src/codemode/request/api-response";
import { redactorFor, secretList } from "../../../../helpers/redaction/redactor-for";

const encode = (s: string) => new TextEncoder().encode(s);

describe("credentials only the byte view's compaction reads, in a CJK answer (hostile)", () => {
  // A credential that starts with what such a character's last byte folds to can follow it.
  const cases: [string, string, string][] = [
    ["`ゲ` as `2`", "2xq7Lm9PzkR4", "ゲxq7Lm9PzkR4"],
    ["`オ` as `a`", "aXq7Lm9PzkR4", "オXq7Lm9PzkR4"],
    ["`ス` as `1`, the rest full-width capitals", "1XQLMPZKRW", "スＸＱＬＭＰＺＫＲＷ"],
    ["`ズ` as `o`, then a no-break space", "oXq7Lm9PzkR4", "ズX\u00a0q7Lm9PzkR4"],
    ["`コ` as `3` between CJK", "3xq7Lm9PzkR4", "コxq7Lm9PzkR4東京"],
  ];
  const sizes: [string, number][] = [
    ["small", 0],
    ["sliced", SLICED_BODY],
  ];
  for (const [size, pad] of sizes)
    it.each(cases)(`cuts %s (${size})`, async (_, secret, spelled) => {
      const text = `{"名前":"${"東京都".repeat(1 + pad / 9)}","説明":"${spelled}","c":"中文"}`;
      // The premise: the text's own search does not see it, only the bytes' search does.
      expect(redactorFor(secret).cleanText(text)).toBe(text);
      const bytes = encode(text);
      expect(redactorFor(secret).cleanBytes(bytes, undefined, false)).not.toBe(bytes);
      const result = await toApiResult(
        new Response(bytes, { headers: { "content-type": "application/json; charset=utf-8" } }),
        secretList(secret),
      );
      const got = typeof result.body === "string" ? result.body : JSON.stringify(result.body);
      // What the program could make of it: its UTF-8 bytes read as windows-1252, compacted.
      const reread = new TextDecoder("windows-1252")
        .decode(encode(got))
        .normalize("NFKC")
        .replace(/[\s\u200b]/g, "");
      expect(reread.toLowerCase()).not.toContain(secret.toLowerCase());
      expect(got).not.toContain(spelled);
    });
});
