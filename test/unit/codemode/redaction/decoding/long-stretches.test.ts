// Bytes are searched in their long stretches only (src/codemode/redaction/decoding/
// long-stretches.ts, issue #40): a binary body's stretches between inert characters are mostly
// too short to hold a form. The cut must lose nothing the whole search finds: spellings at the
// cut's edges (a stretch exactly as heavy as the shortest form, a list string around an inert
// character, dump lines and tag characters apart, a trigger in a short stretch) are still cut out.
import { describe, expect, test } from "vitest";
import { byteView } from "../../../../../src/codemode/redaction/byte-text";
import {
  ALL_FAMILIES,
  CSS_ESCAPE,
  decodeStep,
  SCRIPT_ESCAPE,
} from "../../../../../src/codemode/redaction/decoding/decode-step";
import {
  asciiRun,
  byteWeight,
  MOST_FOLDED,
  sequenceMayStart,
  stretchWork,
} from "../../../../../src/codemode/redaction/decoding/long-stretches";
import { secretRedactor } from "../../../../../src/codemode/redaction/redaction";
import { noiseBytes } from "../../../../helpers/redaction/seeded-noise";

const secret = "cf-canary-token-6f1d2c9a8b7e";
const redactor = secretRedactor(Object.freeze([secret]));
const encoder = new TextEncoder();
const utf8 = (text: string) => [...encoder.encode(text)];
const hex = (b: number) => b.toString(16).padStart(2, "0");

/** Noise without a byte that would spell something itself (no `%`, no no-break space). */
function quietNoise(length: number, seed: number): number[] {
  return [...noiseBytes(length, seed)].map((b) => (b === 0xa0 || b === 0x25 ? 0x41 : b));
}

/** `spelled` (bytes) between 128 KiB of noise on each side. */
const amongNoise = (spelled: number[], seed = 7) =>
  Uint8Array.from([...quietNoise(131_072, seed), ...spelled, ...quietNoise(131_072, seed + 1)]);

/**
 * Whether each byte redaction (at once, in slices) cut the body (the marker written, or the body
 * withheld); both searched the body's long stretches only.
 */
async function cuts(body: Uint8Array, words = redactor): Promise<[boolean, boolean]> {
  // The marker in the copy's layout (with NULs for a UTF-16 copy), left out before looking.
  const marker = (out: Uint8Array | undefined) =>
    out === undefined || byteView(out).replaceAll("\0", "").includes("[REDACTED]");
  const before = stretchWork.cuts;
  const whole = words.bytes(body);
  const sliced = await words.cleanBytesInSlices(body);
  // Each search's first round was made of the long stretches (a round after a cut may be too).
  expect(stretchWork.cuts - before).toBeGreaterThanOrEqual(2);
  return [marker(whole), marker(sliced)];
}

describe("the weights: what a byte can stand for in a find", () => {
  test("no code point folds to more ASCII in a row than MOST_FOLDED says for its UTF-8 length", () => {
    const most = [0, 0, 0, 0, 0];
    for (let code = 0x80; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const length = code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      const run = asciiRun(String.fromCodePoint(code).normalize("NFKC"));
      if (run > most[length]!) most[length] = run;
      // What a decoded sequence of three characters makes (`%XX`, `=XX`: Latin-1) folds to one
      // ASCII character at most; five (`&#999`) to two; a sequence of a code point beyond is
      // six characters or more (`\u2167`, `&#8551;`, a list item and its separator).
      if (code <= 0xff) expect(run, code.toString(16)).toBeLessThanOrEqual(1);
      if (code <= 999) expect(run, code.toString(16)).toBeLessThanOrEqual(2);
    }
    expect(most.slice(2)).toEqual(MOST_FOLDED.slice(2));
  });

  test("a byte weighs what its character folds to, and a lead byte what its sequence does", () => {
    const shown = byteView(Uint8Array.from({ length: 256 }, (_, b) => b));
    expect(byteWeight(0x99, shown.charCodeAt(0x99))).toBe(2); // ™ → TM
    expect(byteWeight(0x85, shown.charCodeAt(0x85))).toBe(3); // … → ...
    expect(byteWeight(0xe2, shown.charCodeAt(0xe2))).toBe(2); // E2 85 A7 (Ⅷ) → VIII
    for (let b = 0; b < 256; b++)
      expect(byteWeight(b, shown.charCodeAt(b))).toBeGreaterThanOrEqual(
        asciiRun(shown[b]!.normalize("NFKC")),
      );
  });
});

describe("random bytes are searched in their long stretches", () => {
  test("the cut is made for random bytes", () => {
    const before = { ...stretchWork };
    expect(redactor.bytes(noiseBytes(262_144, 3))).toBeDefined();
    expect(stretchWork.cuts).toBe(before.cuts + 1);
    expect(stretchWork.kept - before.kept).toBeLessThan((stretchWork.viewed - before.viewed) * 0.6);
  });

  test("a stray `%`, `&`, `=` or `\\`, or a line break before no dump line, keeps no stretch", () => {
    // Random bytes hold one every ~60 bytes; their stretches were half of what was kept.
    const before = { ...stretchWork };
    expect(redactor.bytes(noiseBytes(262_144, 3))).toBeDefined();
    const share = (stretchWork.kept - before.kept) / (stretchWork.viewed - before.viewed);
    expect(share).toBeLessThan(0.17);
  });

  const spellings: Record<string, number[]> = {
    "the secret": utf8(secret),
    "between two inert characters": [0xff, ...utf8(secret), 0xc0],
    percent: utf8([...secret].map((c) => `%${hex(c.charCodeAt(0))}`).join("")),
    "a decimal list": utf8(utf8(secret).join(",")),
    "a hex list": utf8(utf8(secret).map(hex).join(" ")),
    "one-character strings": utf8(JSON.stringify([...secret])),
    "full-width": utf8(
      [...secret].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join(""),
    ),
    "UTF-16": [...secret].flatMap((c) => [c.charCodeAt(0), 0]),
    "character references": utf8([...secret].map((c) => `&#${c.charCodeAt(0)};`).join("")),
    "quoted-printable": utf8(
      [...secret].map((c) => `=${hex(c.charCodeAt(0)).toUpperCase()}`).join(""),
    ),
    octal: utf8(
      utf8(secret)
        .map((b) => b.toString(8).padStart(3, "0"))
        .join(" "),
    ),
    "code points": utf8(
      [...secret].map((c) => `U+00${hex(c.charCodeAt(0)).toUpperCase()}`).join(" "),
    ),
    "zero-width joined": utf8([...secret].join("\u200b")),
    base64: utf8(btoa(secret)),
  };
  for (const [name, spelled] of Object.entries(spellings))
    test(`${name}, inside a long stretch of noise, is cut out`, async () => {
      expect(await cuts(amongNoise(spelled))).toEqual([true, true]);
    });
});

describe("the cut's edges", () => {
  for (const inert of [0xff, 0x01])
    test(`an 8-character secret, alone between two inert characters (${hex(inert)}), is cut out`, async () => {
      // A stretch exactly as heavy as the shortest form (`z` after each: no list string).
      const short = secretRedactor(Object.freeze(["k9Xq2wLp"]));
      const spelled = [0x7a, inert, ...utf8("k9Xq2wLp"), inert, 0x7a];
      expect(await cuts(amongNoise(spelled), short)).toEqual([true, true]);
    });

  test("a stretch shorter than the form but as heavy (`™` folds to `TM`) is kept", async () => {
    // Five bytes 0x99 (`™` in windows-1252) between inert characters fold to the secret.
    const tm = secretRedactor(Object.freeze(["TMTMTMTMTM"]));
    const spelled = [0x7a, 0xff, 0x99, 0x99, 0x99, 0x99, 0x99, 0xff, 0x7a];
    expect(await cuts(amongNoise(spelled), tm)).toEqual([true, true]);
  });

  test("a copy split by an inert character is not read (by the whole search neither)", async () => {
    const split = [...utf8(secret.slice(0, 9)), 0xff, ...utf8(secret.slice(9))];
    expect(await cuts(amongNoise(split))).toEqual([false, false]);
  });

  for (const inert of [0xff, 0x01])
    test(`a list string around an inert character (${hex(inert)}) joins its stretch to the next`, async () => {
      // `"x","ÿ","c",…,"a"` then the rest in plain letters: nine strings, seven after the `ÿ`
      // (too few for a run alone), and the stretch before it short.
      const items = [..."cf-cana"].map((c) => `"${c}"`).join(",");
      const spelled = [0xff, ...utf8(`"x","`), inert, ...utf8(`",${items}${secret.slice(7)}`)];
      expect(await cuts(amongNoise(spelled))).toEqual([true, true]);
    });

  test("a list string in full-width quotes around an inert character joins its stretches", async () => {
    // `＂` (EF BC 82) folds to `"`: the lead byte after the inert character may close the
    // string, the continuation byte before it may open it. The same list as above.
    const items = [..."cf-cana"].map((c) => `"${c}"`).join(",");
    const spelled = [0xff, ...utf8(`"x",＂`), 0xff, ...utf8(`＂,${items}${secret.slice(7)}`)];
    expect(await cuts(amongNoise(spelled))).toEqual([true, true]);
  });

  test("a copy split by a control character is not read (by the whole search neither)", async () => {
    const split = [...utf8(secret.slice(0, 20)), 0x1f, ...utf8(secret.slice(20))];
    expect(await cuts(amongNoise(split))).toEqual([false, false]);
  });

  test("a copy between control characters, in a stretch exactly its length, is cut out", async () => {
    expect(await cuts(amongNoise([0x01, ...utf8(secret), 0x7f]))).toEqual([true, true]);
  });

  // Each piece below is a stretch of its own, shorter than the shortest form: `ÿ` before a `z`
  // ends a stretch (no list string around it), and what keeps the piece is its mark.
  const dumps: Record<string, (b: number, k: number) => string> = {
    "hexdump -C": (b, k) =>
      `${k.toString(16).padStart(8, "0")}  ${hex(b)}  |${String.fromCharCode(b)}|`,
    xxd: (b, k) => `${k.toString(16).padStart(8, "0")}: ${hex(b)}  ${String.fromCharCode(b)}`,
  };
  for (const [name, line] of Object.entries(dumps))
    test(`${name} lines of one byte each, inert characters between, are joined`, async () => {
      const lines = utf8(secret).flatMap((b, k) => [...utf8(`z\n${line(b, k)}\n`), 0xff]);
      expect(await cuts(amongNoise(lines))).toEqual([true, true]);
    });

  test("tag characters, inert characters between, are read as one copy", async () => {
    const tags = [...secret].flatMap((c) => [
      0x7a,
      ...utf8(String.fromCodePoint(0xe0000 + c.charCodeAt(0))),
      0xff,
    ]);
    expect(await cuts(amongNoise(tags))).toEqual([true, true]);
  });

  test("a folded reading made for a trigger in a short stretch reads a long one", async () => {
    // Code points with a full-width `Ｕ` are read in the folded view only, made when a digit
    // stands before a no-break space somewhere (here in a stretch of three bytes).
    const points = [...secret].map((c) => `\uff35+00${hex(c.charCodeAt(0)).toUpperCase()}`);
    const body = [0xff, 0x31, 0xa0, 0xff, ...quietNoise(64, 9), ...utf8(points.join(" "))];
    expect(await cuts(amongNoise(body))).toEqual([true, true]);
  });
});

describe("a `% & =` keeps its stretch only where a sequence may start", () => {
  const at0 = (text: string) =>
    sequenceMayStart(
      Uint8Array.from(text, (c) => c.charCodeAt(0)),
      0,
    );

  test("each family's sequences, and what starts none", () => {
    for (const text of ["%41", "%u0041", "%U0", "%h0", "%4n", "&#65", "&#x", "&sol;", "&a", "=4F"])
      expect(at0(text), text).toBe(true);
    for (const text of ["=\n", "=\r\n", "%\x004\x001", "=\x00\x004\x00F", "&\x00#"])
      expect(at0(text), JSON.stringify(text)).toBe(true);
    // Escapes that read digits or make a line break (`\k`, `\h`: `\x`, `\u` in ROT13).
    for (const text of [
      "\\x4",
      "\\u0",
      "\\u{",
      "\\41",
      "\\n",
      "\\r",
      "\\\n",
      "\\k",
      "\\h",
      "\\\x00x",
    ])
      expect(at0(text), JSON.stringify(text)).toBe(true);
    for (const text of ['\\"', "\\t", "\\\xff", "\\'", "\\/", "\\"])
      expect(at0(text), JSON.stringify(text)).toBe(false);
    for (const text of [
      "%G1",
      "%4",
      "% 41",
      "%\xff41",
      "&1",
      "&\xff",
      "&;",
      "=G1",
      "= 4F",
      "=",
      "%",
    ])
      expect(at0(text), JSON.stringify(text)).toBe(false);
  });

  test("every sequence a step decodes at a `% & =` is one it says may start", () => {
    // What may follow a lead, in the bytes, with NULs between, and in ROT13: every pair of these
    // after each lead, then a tail that completes the longer sequences.
    const next = ["0", "4", "9", "a", "F", "g", "n", "s", "t", "u", "U", "h", "x", "#", "S", ";"];
    const more = [...next, "\n", "\r", "\0", " ", "\xff", "%", "="];
    const rot13 = (text: string) =>
      text.replace(/[a-z]/gi, (c) => {
        const base = c <= "Z" ? 65 : 97;
        return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
      });
    let decoded = 0;
    for (const lead of ["%", "&", "=", "\\"])
      for (const a of more)
        for (const b of more) {
          const text = `${lead}${a}${b}041;ol;`;
          const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
          for (const view of [text, text.replaceAll("\0", ""), rot13(text)]) {
            const step = decodeStep({ text: view, origin: null }, ALL_FAMILIES);
            // The step decoded a sequence at the lead: the view's first character changed.
            if (!step?.changed || step.changed.count === 0 || step.changed.outStart(0) !== 0)
              continue;
            if (step.origin!(0, false) !== 0) continue;
            // An escape counts when it read digits or made a line break (the others keep no
            // stretch: they read as the rest of it does).
            const made = step.text.charCodeAt(0);
            const escapeDigits = (step.digitFamilies ?? 0) & (SCRIPT_ESCAPE | CSS_ESCAPE);
            if (lead === "\\" && !escapeDigits && made !== 10 && made !== 13) continue;
            decoded++;
            expect(sequenceMayStart(bytes, 0), JSON.stringify(view)).toBe(true);
          }
        }
    expect(decoded).toBeGreaterThan(200);
  });
});

describe("stretches that decide which steps are made, far from the copy", () => {
  /** Noise without a byte that would start a sequence or spell something itself. */
  const plainNoise = (length: number, seed: number) =>
    quietNoise(length, seed).map((b) => (b === 0x26 || b === 0x3d || b === 0x5c ? 0x41 : b));
  const among = (...parts: number[][]) =>
    Uint8Array.from([
      ...plainNoise(131_072, 7),
      ...parts.flatMap((part, k) => [...part, ...plainNoise(3_000, k)]),
      ...plainNoise(131_072, 8),
    ]);
  /**
   * `bytes` as a stretch of their own, too short to be kept for their weight: `~` (which opens
   * no list string) and `z` (which closes none) outside the inert characters around them.
   */
  const shortStretch = (bytes: number[]) => [0x7e, 0xff, ...bytes, 0xff, 0x7a];
  // `%3Dcf%252D…`: the first step makes `=cf%2D…`, and the second decodes `=cf` as
  // quoted-printable, swallowing the copy's first two letters. Only the steps without
  // quoted-printable read it, made when the first step decoded quoted-printable somewhere.
  const swallowed = utf8(
    `%3D${secret.slice(0, 2)}%25${hex(secret.charCodeAt(2))}${secret.slice(3)}`,
  );

  test("a copy the second step swallows is read when a short stretch holds `=41`", async () => {
    expect(await cuts(among(shortStretch(utf8("=41")), swallowed))).toEqual([true, true]);
  });

  test("in a cut body, without that stretch too: every family is left out in turn", async () => {
    // Which families the first step read depends on what stands within a step's reach of the
    // stretches kept; a cut body makes the steps without each family (main read this copy
    // only when some `=XX` stood within reach of the NULs a UTF-16 copy's view dropped).
    expect(await cuts(among(swallowed))).toEqual([true, true]);
    expect(await cuts(among(swallowed.flatMap((b) => [b, 0])))).toEqual([true, true]);
  });

  test("the same in UTF-16, with `=\\0 4\\0 1` in a short stretch (read once NULs are dropped)", async () => {
    const utf16 = swallowed.flatMap((b) => [b, 0]);
    const trigger = shortStretch([0x3d, 0, 0x34, 0, 0x31, 0]);
    expect(await cuts(among(trigger, utf16))).toEqual([true, true]);
  });

  test("a copy an escape's second step swallows is read when a short stretch holds `\\x41`", async () => {
    // `%5Cu00cf%252Dcanary…`: the first step makes `\u00cf%2Dcanary…`, the second reads
    // `\u00cf`; only the steps without escapes read the copy.
    const escaped = utf8(
      `%5Cu00${secret.slice(0, 2)}%25${hex(secret.charCodeAt(2))}${secret.slice(3)}`,
    );
    expect(await cuts(among(shortStretch(utf8("\\x41")), escaped))).toEqual([true, true]);
  });

  // A line break before a byte beyond ASCII keeps its stretch: the byte may fold to the offset's
  // first digit or be dropped before it, in the folded view, whose dump lines are read too.
  test("`od -t x1` lines whose offset starts with a full-width `０`, apart, are joined", async () => {
    const lines = utf8(secret).flatMap((b, k) => [
      ...utf8(`z\n\uff10${(k * 16).toString(16).padStart(6, "0")} ${hex(b)}\n`),
      0xff,
    ]);
    expect(await cuts(among(lines))).toEqual([true, true]);
  });

  test("xxd lines after a soft hyphen (0xAD), one byte each and apart, are joined", async () => {
    const lines = utf8(secret).flatMap((b, k) => [
      0x7a,
      0x0a,
      0xad,
      ...utf8(`${k.toString(16).padStart(8, "0")}: ${hex(b)}  ${String.fromCharCode(b)}`),
      0xff,
    ]);
    expect(await cuts(among(lines))).toEqual([true, true]);
  });

  test("a list whose last character is percent-encoded is decoded after the list is read", async () => {
    // The list reading produced no sequence's start, which alone decided the steps after it;
    // in a cut body they are made after every reading.
    const codes = utf8(secret.slice(0, -1)).join(",");
    const copy = utf8(`${codes}%${hex(secret.charCodeAt(secret.length - 1))}`);
    expect(await cuts(among(copy))).toEqual([true, true]);
  });
});
