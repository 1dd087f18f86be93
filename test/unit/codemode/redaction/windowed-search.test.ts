// src/codemode/redaction/windowed-search.ts: a search in windows finds exactly what one search
// over the whole text finds, wherever the windows' edges fall, and charges its windows to the
// pass's slice budget.
import { describe, expect, it } from "vitest";
import { PAUSE, runToEnd, SLICE_POSITIONS } from "../../../../src/codemode/redaction/slices";
import {
  dumpBytesView,
  dumpTextView,
} from "../../../../src/codemode/redaction/spellings/dump-views";
import {
  CHARACTERS_PER_POSITION,
  OVERLAP,
  sliceBudget,
  WINDOW,
  WindowedSearch,
} from "../../../../src/codemode/redaction/windowed-search";

/** Every match of the windowed search, moving past each one as a reader would. */
function windowed(pattern: RegExp, text: string): [number, string][] {
  const search = new WindowedSearch(pattern, text);
  const found: [number, string][] = [];
  for (let match = runToEnd(search.next()); match; match = runToEnd(search.next())) {
    found.push([match.index, match[0]]);
    search.from = match.index + match[0].length;
  }
  return found;
}

/** The same over the whole text at once. */
function whole(pattern: RegExp, text: string): [number, string][] {
  const global = new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`);
  return [...text.matchAll(global)].map((m) => [m.index, m[0]]);
}

describe("WindowedSearch", () => {
  // Matches placed on every side of a window's edge: just before it, across it, just after it.
  const around = (edge: number, item: string, filler = "x") => {
    let text = "";
    for (const at of [edge - item.length - 1, edge - item.length, edge - 2, edge, edge + 1])
      text += filler.repeat(Math.max(0, at - text.length)) + item;
    return text;
  };

  it.each([
    // A window that starts inside `7712 34` sees `12 34` at its start, where there is no word
    // boundary in the text: the match is not the text's.
    ["no word boundary at a window's edge", /\b12 34\b/, `${around(WINDOW, "12 34", "7")} 12 34`],
    ["a word boundary", /\b12 34\b/, around(WINDOW, "12 34 ", " ")],
    ["line starts and ends", /^ab+c$/m, around(WINDOW, "\nabbbc\n", "q")],
    ["a line that starts at a window's edge", /^abc/m, `${"y".repeat(WINDOW - 1)}\nabc`],
    ["no line start at a window's edge", /^abc/m, `${"y".repeat(WINDOW)}abc\nabc`],
    [
      "a match as long as the overlap",
      new RegExp(`a{${OVERLAP}}`),
      around(2 * WINDOW, "a".repeat(OVERLAP), "b"),
    ],
  ])("finds what one search finds: %s", (_, pattern, text) => {
    const expected = whole(pattern, text);
    expect(expected.length).toBeGreaterThan(0);
    expect(windowed(pattern, text)).toEqual(expected);
  });

  it("answers null past the last match, and from a later start", () => {
    const text = `${"-".repeat(3 * WINDOW)}U+74`;
    const search = new WindowedSearch(/U\+[0-9a-f]/, text);
    expect(runToEnd(search.next())?.index).toBe(3 * WINDOW);
    expect(runToEnd(search.next())).toBeNull();
    search.from = 0;
    expect(runToEnd(search.next())?.index).toBe(3 * WINDOW);
  });

  it("pauses once per slice of windows, charged at a fraction of their characters", () => {
    const text = "z".repeat(SLICE_POSITIONS * CHARACTERS_PER_POSITION * 3);
    const search = new WindowedSearch(/q/, text, sliceBudget());
    let pauses = 0;
    const pass = search.next();
    for (let step = pass.next(); !step.done; step = pass.next()) if (step.value === PAUSE) pauses++;
    expect(pauses).toBe(3);
  });

  it("charges whole positions: a budget's `left` stays an integer after a short last window", () => {
    // A fraction made every budget's `left` a double in V8, boxed at every read outside optimized
    // code: two heap numbers per character of each per-character pass sharing the budget.
    const budget = sliceBudget();
    runToEnd(new WindowedSearch(/q/, "z".repeat(WINDOW + 3), budget).next());
    expect(Number.isInteger(budget.left)).toBe(true);
    expect(budget.left).toBe(SLICE_POSITIONS - WINDOW / CHARACTERS_PER_POSITION - 1);
  });
});

describe("dump lines longer than the overlap, searched in windows (hostile)", () => {
  // `xxd -c 128 -g 8` prints 16 groups of 16 hex digits a line: 400 characters, which the `xxd`
  // line pattern reads, more than a window's overlap. Such a line starting within its last
  // ~30 characters of a window was seen cut off by that window's call and not read at all; its
  // dump's bytes and text columns were read without it (attack16).
  const hex2 = (b: number) => b.toString(16).padStart(2, "0");
  const bytes = Array.from({ length: 256 }, (_, k) => 0x21 + ((k * 7) % 94));
  const lines = [0, 128].map((offset) => {
    const line = bytes.slice(offset, offset + 128);
    const groups = Array.from({ length: 16 }, (_, g) =>
      line
        .slice(g * 8, g * 8 + 8)
        .map(hex2)
        .join(""),
    );
    return `${hex2(offset).padStart(8, "0")}: ${groups.join(" ")}  ${String.fromCharCode(...line)}`;
  });
  const dump = `${lines.join("\n")}\n`;
  const expected = String.fromCharCode(...bytes);

  it("reads both lines wherever a window's edge falls", () => {
    expect(lines[0]!.length).toBeGreaterThan(OVERLAP);
    const at = (before: number) => `${"q".repeat(before - 1)}\n${dump}`;
    // Far from an edge: what each view reads of the dump (all of it as bytes).
    const far = 100;
    const bytesRead = dumpBytesView({ text: at(far), origin: null })!.text.slice(far);
    const textRead = dumpTextView({ text: at(far), origin: null })!.text.slice(far);
    expect(bytesRead).toContain(expected);
    for (let before = WINDOW - 48; before <= WINDOW + 1; before++) {
      const text = at(before);
      expect(dumpBytesView({ text, origin: null })?.text.slice(before), `${before}`).toBe(
        bytesRead,
      );
      expect(dumpTextView({ text, origin: null })?.text.slice(before), `${before}`).toBe(textRead);
    }
  });
});
