// The spelled-out readings of a decoded view are made of its changed segments only
// (src/codemode/redaction/decoding/changed-segments.ts, issue #40: random bytes made ~160 views
// of their whole length). The cut must lose no reading: a credential spelled in a reading of a
// decoded (or NUL-free) view among random bytes is still cut out, as in a text of its own.
import { describe, expect, test } from "vitest";
import { latin1 } from "../../../../../src/codemode/redaction/byte-text";
import {
  changedSegmentsInSlices,
  inertCharacter,
  plainViews,
  segmentWork,
} from "../../../../../src/codemode/redaction/decoding/changed-segments";
import {
  ALL_FAMILIES,
  decodeStep,
  decodeSteps,
  decodeWork,
} from "../../../../../src/codemode/redaction/decoding/decode-step";
import { withoutNulsInSlices } from "../../../../../src/codemode/redaction/decoding/nul-free-view";
import { secretRedactor, type Redactor } from "../../../../../src/codemode/redaction/redaction";
import { PAUSE, runToEnd } from "../../../../../src/codemode/redaction/slices";
import type { View } from "../../../../../src/codemode/redaction/view-builder";
import { noiseBytes } from "../../../../helpers/redaction/seeded-noise";

const secret = "tok_9f8e7d6c5b4a3z";
const codes = (s: string, separator = ",") => [...s].map((c) => c.charCodeAt(0)).join(separator);
const percent = (s: string) =>
  [...s].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
const utf8Percent = (s: string) =>
  [...new TextEncoder().encode(s)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
const fullWidth = (s: string) =>
  [...s].map((c) => String.fromCharCode(c.charCodeAt(0) - 0x20 + 0xff00)).join("");

/** Random bytes (a fixed generator): a few chance sequences and inert characters per KB. */
const noise = noiseBytes;

const asText = (bytes: Uint8Array) => latin1(bytes);
const bytesOf = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
/**
 * `spelled` between two stretches of random bytes, spaces around it (a chance digit beside the
 * first number would join it).
 */
const amongNoise = (spelled: string, length: number, [before, after]: [number, number]) =>
  `${asText(noise(length, before))} ${spelled} ${asText(noise(length, after))}`;
/** A step-two sequence beyond inert characters, far from a copy: a later step produces a digit. */
const far = `ÿ${"x".repeat(3_000)}ÿ%2531ÿ${"x".repeat(3_000)}ÿ`;

/** One step over a text, and that step's view cut to its changed segments. */
function stepAndCut(text: string): [decoded: View, cut: View] {
  const decoded = decodeStep({ text, origin: null })!;
  return [decoded, runToEnd(changedSegmentsInSlices(decoded, inertCharacter))];
}

/** Each way a body is redacted, its output as text (bytes one character per byte). */
const REDACTIONS = {
  text: (redactor: Redactor, body: string) => redactor.text(body),
  bytes: (redactor: Redactor, body: string) => asText(redactor.bytes(bytesOf(body))!),
  slices: async (redactor: Redactor, body: string) =>
    asText((await redactor.cleanBytesInSlices(bytesOf(body)))!),
};
type Redaction = keyof typeof REDACTIONS;

/**
 * Checks that each redaction of `body` cuts `spelled` out and writes the marker (in the copy's
 * layout: with NULs for a UTF-16 copy, left out before looking).
 */
async function expectCutBy(
  redactor: Redactor,
  body: string,
  spelled: string,
  by: readonly Redaction[],
): Promise<void> {
  for (const redaction of by) {
    const out = await REDACTIONS[redaction](redactor, body);
    expect(out, redaction).not.toContain(spelled);
    expect(out.replaceAll("\0", ""), redaction).toContain("[REDACTED]");
  }
}

/**
 * The tests' fixture: one redactor of `secret` for the file (each describe built its own), and
 * `expectCut(body, spelled, by)` checking that the redactions `by` cut a spelling of it out.
 */
const it = test
  .extend("redactor", { scope: "file" }, () => secretRedactor([secret]))
  .extend(
    "expectCut",
    ({ redactor }) =>
      (body: string, spelled: string, by: readonly Redaction[]) =>
        expectCutBy(redactor, body, spelled, by),
  );

describe("changed segments of a decoded view", () => {
  it("keeps each change with the text up to the inert characters around it, mapped back", () => {
    const filler = "x".repeat(2_000);
    const text = `ÿabc%41def ÿ${filler}ÿghi%42jklÿ${filler}`;
    const [, cut] = stepAndCut(text);
    expect(cut.text).toBe("ÿabcAdef ÿÿghiBjklÿ");
    // Each kept character maps to where it was: `A` is the whole `%41`.
    const a = cut.text.indexOf("A");
    expect([cut.origin!(a, false), cut.origin!(a + 1, true)]).toEqual([4, 7]);
    const b = cut.text.indexOf("B");
    expect(text.slice(cut.origin!(b, false), cut.origin!(b + 1, true))).toBe("%42");
    // What the step produced is still what it produced (the readings after it look there).
    expect(cut.changed!.count).toBe(2);
    expect(cut.text[cut.changed!.outStart(1)]).toBe("B");
  });

  it("keeps a view with no inert character whole (ASCII, ordinary JSON)", () => {
    const [decoded, cut] = stepAndCut(`{"a":"x\\ny","b":"${"z".repeat(5_000)}"}`);
    expect(cut).toBe(decoded);
  });

  it("keeps a view whole when its changes are everywhere", () => {
    const [decoded, cut] = stepAndCut("ÿ%41".repeat(1_000));
    expect(cut).toBe(decoded);
  });

  it("takes no character a reading reads as inert", () => {
    // ASCII, UTF-8 bytes read one per byte, full-width, spaces, invisible, swapped UTF-16.
    for (const c of ["a", "%", "\x80", "\xbf", "\xc3", "\xf4", "ｔ", "\u3000", "\u200b", "\u7400"])
      expect(inertCharacter(c.charCodeAt(0))).toBe(false);
    for (const c of ["ÿ", "À", "€", "中", "ж"]) expect(inertCharacter(c.charCodeAt(0))).toBe(true);
  });
});

describe("a credential spelled in a reading of a decoded view among random bytes (hostile)", () => {
  const spellings: [string, string][] = [
    // A step makes the list, the lists view reads it.
    ["char codes, percent-encoded", percent(codes(secret))],
    ["char codes with percent-encoded separators", codes(secret).replace(/,/g, "%2C")],
    [
      "char codes, half of them percent-encoded",
      `${codes(secret.slice(0, 9))},${percent(codes(secret.slice(9)))}`,
    ],
    // The NUL-free view makes the list.
    ["char codes as UTF-16", [...codes(secret)].join("\0") + "\0"],
    // A step makes UTF-8 bytes of full-width letters, compaction reads and folds them.
    ["full-width letters, percent-encoded UTF-8", utf8Percent(fullWidth(secret))],
    // A step makes a percent-encoding, the next one decodes it: two layers of the same family.
    ["percent-encoded twice, between inert characters", `ÿ${percent(percent(secret))}ÿ`],
  ];
  it.for(spellings)("cuts %s out of bytes and out of text", async ([, spelled], { expectCut }) => {
    const before = { ...segmentWork };
    await expectCut(amongNoise(spelled, 60_000, [7, 11]), spelled, ["bytes", "slices", "text"]);
    // The readings were made of the changed segments only: a fraction of the views.
    expect(segmentWork.views).toBeGreaterThan(before.views);
    expect(segmentWork.kept - before.kept).toBeLessThan((segmentWork.viewed - before.viewed) / 4);
  });
});

describe("a list whose separators, quotes or hex letters a step spelled (hostile)", () => {
  // The list reading of a decoded view was made only when its step produced a digit or `, . : ;
  // '`; a list whose other parts were escaped went unread there. Before the cut a later step
  // that produced a digit anywhere (`%2531` far away) reread the whole view and found it; its
  // changed segments no longer reach it, so the list passed either way.
  const hex = (s: string, separator: string) =>
    [...s].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join(separator);
  const spellings: [string, string][] = [
    ["char codes spaced by %20", codes(secret, "%20")],
    ["char codes joined by %2D", codes(secret, "%2D")],
    ["char codes joined by %7C", codes(secret, "%7C")],
    ["char codes joined by %2F", codes(secret, "%2F")],
    ["char codes spaced by &#32;", codes(secret, "&#32;")],
    ["char codes spaced by \\u0020", codes(secret, "\\u0020")],
    ["quoted char codes, quotes %22", codes(secret).replace(/\d+/g, "%22$&%22")],
    ["an array of characters, quotes %22", `[${[...secret].map((c) => `%22${c}%22`).join(",")}]`],
    ["an array of escaped characters", `[${[...secret].map((c) => `"${percent(c)}"`).join(",")}]`],
    ["hex bytes, 0x spelled 0%78", hex(secret, ",0%78").replace(/^/, "0x")],
    ["hex bytes, letters escaped", hex(secret, ",").replace(/[a-f]/g, (c) => percent(c))],
  ];
  // `far`: the step after the one that spelled the list produced a digit, far from it.
  it.for(spellings)(
    "cuts %s out, alone and beside a later step's digit",
    async ([, spelled], { expectCut }) => {
      for (const body of [` ${spelled} `, `${far} ${spelled} ${far}`])
        await expectCut(body, spelled, ["text", "bytes"]);
    },
  );
});

describe("characters a step spelled beside what compaction drops (hostile)", () => {
  // Compaction of a decoded view was made only when its step produced whitespace or a character
  // beyond ASCII; letters a step spelled between spaces or invisible characters the text held
  // already (`%74 %6f …`) were never joined, and no later view's changed segments reach them.
  const spellings: [string, string][] = [
    ["escaped letters spaced apart", [...secret].map(percent).join(" ")],
    ["escaped letters between zero-width spaces", [...secret].map(percent).join("\u200b")],
    ["escaped letters between no-break spaces", [...secret].map(percent).join("\u00a0")],
    ["escaped letters between soft hyphens", [...secret].map(percent).join("\u00ad")],
    [
      "full-width char codes, commas escaped",
      [...secret].map((c) => fullWidth(codes(c))).join("%2C"),
    ],
  ];
  it.for(spellings)(
    "cuts %s out, alone and beside a later step's digit",
    async ([, spelled], { expectCut }) => {
      for (const body of [` ${spelled} `, `${far} ${spelled} ${far}`])
        await expectCut(body, spelled, ["text"]);
    },
  );
});

describe("decoding steps cut to what they change among random bytes (hostile)", () => {
  // A step over a view that was searched whole keeps only the segments around its sequences
  // (src/codemode/redaction/decoding/decode-step.ts, issue #40): each step of a binary body
  // made a view of its whole length. Every layer and family a step decodes is still read.
  const rot13 = (s: string) =>
    s.replace(/[a-z]/gi, (c) => {
      const base = c <= "Z" ? 65 : 97;
      return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
    });
  const spellings: [string, string][] = [
    ["percent-encoded", percent(secret)],
    ["percent-encoded three times", percent(percent(percent(secret)))],
    ["character references of percent-encoding", percent(secret).replace(/%/g, "&#37;")],
    ["JavaScript escapes", [...secret].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join("")],
    ["quoted-printable", [...secret].map((c) => `=${c.charCodeAt(0).toString(16)}`).join("")],
    ["percent-encoded UTF-16", [...secret].map((c) => `${percent(c)}%00`).join("")],
    ["percent-encoded char codes", percent(codes(secret))],
    ["ROT13 of a percent-encoding", rot13(percent(secret))],
  ];
  it.for(spellings)(
    "cuts %s out of bytes and text, the steps cut",
    async ([, spelled], { expectCut }) => {
      const before = decodeWork.cut;
      const body = amongNoise(spelled, 80_000, [5, 9]);
      await expectCut(body, spelled, ["bytes", "slices", "text"]);
      // Most of each view a step read whole was cut away before the step.
      expect(decodeWork.cut - before).toBeGreaterThan(body.length);
    },
  );

  it("cuts a view before a step to the segments around its sequences, mapped back", () => {
    const filler = "x".repeat(3_000);
    const text = `${filler}ÿab%41cdÿ${filler}ÿef%2542ghÿ${filler}`;
    const views = [...decodeSteps({ text, origin: null }, ALL_FAMILIES, 3, inertCharacter)];
    const [first, second] = views.filter((view) => view !== PAUSE) as View[];
    expect(first!.text).toBe("ÿabAcdÿÿef%42ghÿ");
    // The second step changed one place of a short view: kept whole.
    expect(second!.text).toBe("ÿabAcdÿÿefBghÿ");
    const b = second!.text.indexOf("B");
    expect(text.slice(second!.origin!(b, false), second!.origin!(b + 1, true))).toBe("%2542");
    // Without inert characters (ASCII) the views stay whole, and a step that produced none is
    // known to hold none (no search of it for one: ~8 % of an ordinary JSON body's redaction).
    const ascii = [
      ...decodeSteps({ text: `${filler}%41`, origin: null }, ALL_FAMILIES, 3, inertCharacter),
    ];
    expect((ascii[0] as View).text).toBe(`${filler}A`);
    expect(plainViews.has(ascii[0] as View)).toBe(true);
    const wide = [
      ...decodeSteps({ text: `${filler}%C3%BF`, origin: null }, ALL_FAMILIES, 3, inertCharacter),
    ];
    expect((wide[0] as View).text).toBe(`${filler}Ã¿`);
    expect(plainViews.has(wide[0] as View)).toBe(false);
  });
});

describe("the NUL-free view of a view searched whole, cut to its NULs", () => {
  it("keeps the segments around the NULs, mapped back, and reads a UTF-16 copy there", () => {
    const filler = "x".repeat(3_000);
    const utf16 = [...secret].map((c) => `${c}\0`).join("");
    const text = `${filler}ÿ${utf16}ÿ${filler}ÿa\0bÿ${filler}`;
    const cut = runToEnd(withoutNulsInSlices({ text, origin: null }, inertCharacter))!;
    expect(cut.text).toBe(`ÿ${secret}ÿÿabÿ`);
    const at = cut.text.indexOf(secret);
    // As in the whole view: a copy's end lies before the NULs dropped after its last character.
    expect(text.slice(cut.origin!(at, false), cut.origin!(at + secret.length, true))).toBe(
      utf16.slice(0, -1),
    );
    // Without `inert` (a view not searched whole) it stays whole.
    expect(runToEnd(withoutNulsInSlices({ text, origin: null }))!.text).toBe(
      text.replaceAll("\0", ""),
    );
  });
});

describe("a copy in tag characters, part of it decoded by a step (hostile)", () => {
  // The tag reading drops every other character, inert ones too: the tags a step decoded were
  // read without the text's own tags once the segment holding those was cut away (attack9).
  const tags = (s: string) => [...s].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0)));
  const brace = (s: string) => tags(s).map((t) => `\\u{${t.codePointAt(0)!.toString(16)}}`);
  const [head, tail] = [secret.slice(0, 9), secret.slice(9)];
  it("cuts it out of text, the text's tags after or before the decoded ones", ({ redactor }) => {
    const pad = "中".repeat(6_000);
    for (const body of [
      `${brace(head).join("")}中${tags(tail).join("")}中${pad}`,
      `${pad}中${tags(head).join("")}中${brace(tail).join("")}`,
    ]) {
      const text = redactor.text(body);
      expect(text).not.toBe(body);
      expect(text).toContain("[REDACTED]");
    }
  });
});

describe("a dump whose lines stand apart, one line decoded by a step (hostile)", () => {
  // The dump readings join every dump line of a view, also across other lines a log put between
  // them, which may hold inert characters: a decoded view's segment around what its step changed
  // in one dump line held that line alone, and the other lines' part of the copy was read
  // nowhere (attack16). Read whole (no cut), each is caught.
  const hex2 = (code: number) => code.toString(16).padStart(2, "0");
  const offset = (at: number, width: number) => at.toString(16).padStart(width, "0");
  const chunks = [secret.slice(0, 10), secret.slice(10)];
  const pairs = (chunk: string) => [...chunk].map((c) => hex2(c.charCodeAt(0)));
  // The first pair of the last line percent-encoded (`%37` for `7`): no dump line before the
  // step, which decodes it.
  const encodeFirst = (groups: string) =>
    groups.replace(/^(.)/, (c) => `%${hex2(c.charCodeAt(0))}`);
  const dumps: Record<string, string[]> = {
    "hexdump -C": chunks.map((chunk, k) => {
      const line = `${offset(k * 10, 8)}  ${pairs(chunk).join(" ").padEnd(47)}  |${chunk}|`;
      return k === 1 ? line.replace(/  (..)/, (_, pair: string) => `  ${encodeFirst(pair)}`) : line;
    }),
    xxd: chunks.map((chunk, k) => {
      const groups = pairs(chunk).join("");
      return `${offset(k * 10, 8)}: ${k === 1 ? encodeFirst(groups) : groups}  ${".".repeat(chunk.length)}`;
    }),
    "od -t x1": chunks.map((chunk, k) => {
      const groups = pairs(chunk).join(" ");
      return `${offset(k * 10, 7)} ${k === 1 ? encodeFirst(groups) : groups}`;
    }),
  };
  const pad = "中".repeat(3_000);
  for (const [tool, [first, second]] of Object.entries(dumps))
    it(`cuts a ${tool} dump out of text, a log line of inert characters between`, ({
      redactor,
    }) => {
      for (const between of ["ÿ", "日志 ÿ"]) {
        const dump = `${first}\n${between}\n${second}\n`;
        for (const body of [dump, `${pad}\n${dump}${pad}`])
          expect(redactor.text(body), `${tool}, ${between}`).toContain("[REDACTED]");
      }
    });
  for (const [tool, [first, second]] of Object.entries(dumps))
    it(`cuts a ${tool} dump out of random bytes past the long stretches' gate, a 0xFF line between`, ({
      redactor,
    }) => {
      // Cut to its long stretches (../long-stretches.ts), then each decoded view to its changed
      // segments: both must keep the dump's lines.
      const dump = `\n${first}\n\xff\n${second}\n`;
      const body = amongNoise(dump, 40_000, [5, 9]);
      expect(asText(redactor.bytes(bytesOf(body))!), tool).toContain("[REDACTED]");
    });
});
