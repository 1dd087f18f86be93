// Issue #40: no search of redaction may leave V8's backtracking engine. Every local workerd runs
// with `--enable-experimental-regexp-engine-on-excessive-backtracks` (cli/local-server/v8-flags.mjs),
// and V8 counts backtracks over one whole `exec`: a pattern that backtracks a few times per
// position passed the 50,000 somewhere in a large body, and the rest of that search ran on the
// linear engine, seconds of the host's thread and gigabytes of memory (the octal view's lead over
// the e2e heavy-bodies body: 4.3 s and 2.5 GB of peak RSS for 4 MB in Node). Redaction's searches
// now run in windows (src/codemode/redaction/windowed-search.ts). This runs the redaction of
// bodies a program can make an echoing API return in a Node with workerd's flags and V8's trace
// of that engine, and fails on any search that switched.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REGEXP_FALLBACK_FLAGS } from "../../../../cli/local-server/v8-flags.mjs";

const root = fileURLToPath(new URL("../../../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "redaction-regexp-engine-"));
const script = join(dir, "redact.mjs");

// What the child runs: the redaction of 1 MiB of each unit given, one after the other, each
// announced on stdout before V8's trace of its searches (the same stream, in order).
const ENTRY = `
import { secretRedactor } from ${JSON.stringify(join(root, "src/codemode/redaction/redaction.ts"))};
const redactor = secretRedactor(Object.freeze(["Bearer tok_Live.9f8e/7d6c-5b4a", "tok_Live.9f8e/7d6c-5b4a"]));
for (const [index, unit] of JSON.parse(process.argv[2]).entries()) {
  const body = unit.repeat(Math.ceil(1_048_576 / unit.length)).slice(0, 1_048_576);
  console.log("unit " + index);
  redactor.cleanText(body);
}
console.log("redacted");
`;

beforeAll(async () => {
  await build({
    stdin: { contents: ENTRY, resolveDir: root, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: script,
    logLevel: "error",
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * What V8 printed about the linear engine while each unit's body was redacted, by unit. One child
 * for every unit (a child each took ~0.4 s of start, bundle load and redactor build apiece, most
 * of the file's time): V8 counts backtracks per `exec`, so what one body's searches do does not
 * depend on the bodies searched before it in the same process.
 */
function switches(units: string[]): string[][] {
  const out = execFileSync(
    process.execPath,
    [...REGEXP_FALLBACK_FLAGS, "--trace-experimental-regexp-engine", script, JSON.stringify(units)],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1_048_576 },
  );
  expect(out).toContain("redacted");
  const byUnit: string[][] = units.map(() => []);
  let unit = -1;
  for (const line of out.split("\n")) {
    const announced = /^unit (\d+)$/.exec(line);
    if (announced) unit = Number(announced[1]);
    else if (line.startsWith("Experimental execution")) byUnit[unit]!.push(line);
  }
  expect(unit).toBe(units.length - 1);
  return byUnit;
}

const UNITS: [string, string][] = [
  // test/e2e/heavy-bodies.mjs's body: the octal lead backtracked at every `2541`.
  ["%25 spellings that decode twice", "%2541%25%41a%2525"],
  ["numbers one digit too long for octal", "2541 "],
  ["octal numbers that never make a run", "164 157 x "],
  ["Morse marks with no space", "-.-.-.-.-."],
  ["Morse marks before a letter", ". . . . . . . . x"],
  ["code points almost", "U+7 \\x{7 "],
  ["od -c lines one cell short of a dump", "0000000   a   b  \\q\n"],
  ["offsets followed by spaces", "0000000        "],
  // A repetition's failed steps count as backtracks: `\n[0-9a-f]{7}` switched on this one.
  ["offsets one digit short", "\n000000x"],
  ["xxd lines with a bad group", "00000010: 6f74 6b5f 4c69 zz  tok_Li\n"],
  ["hexdump -C lines without a text column", "00000000  74 6f 6b 5f 4c 69 76 65  \n"],
  ["od lines of the wrong width", "0000000 0164 0157 0153\n"],
  // attack8: spaces between a digit and a folding separator, walked back outside the engine.
  ["digits and spaces before a folding separator", "1   \u3001 2 x "],
  ["upper-case xxd lines with a bad group", "00000010: 6F74 6B5F 4C69 ZZ  tok_Li\n"],
  // The ROT13 view's lead: `%` then a digit, short of a ROT13-written sequence.
  ["percent signs before one digit", "%0%0%0%0"],
  ["ROT13 escapes almost", "\\k0=0&#k"],
  // The byte-swapped UTF-16 view's scan: none of its characters, then short runs of them.
  ["CJK text without byte-swapped characters", "\u4e01\u4e02 "],
  ["byte-swapped characters in short runs", "\u7400\u6f00\u6b00 a"],
  // The lists view's run shapes: one-character strings an item short of the shape, with the
  // longest whitespace it covers; list characters one short of 15; a dump line end almost.
  ["one-character strings an item short", '"\uff54"\t\t\t\t\t\t\t"\uff4f"\t\t\t\t\t\t\t,x'],
  ["list characters one short", '"1","2",\'3\',x_\u00ff'],
  ["a dump line end almost", "|abcdefghijklmnop|\n0000000x |a|\r\n"],
];

describe("redaction's searches stay on the backtracking engine", () => {
  let found: string[][];
  // 21 MiB redacted in one child: seconds, more on a loaded machine.
  beforeAll(() => {
    found = switches(UNITS.map(([, unit]) => unit));
  }, 120_000);
  it.each(UNITS.map(([name], index) => [name, index] as const))("%s", (_, index) => {
    expect(found[index]).toEqual([]);
  });
});
