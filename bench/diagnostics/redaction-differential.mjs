/**
 * A differential fuzz of byte redaction against another tree (issue #40: a cost cut must never
 * let through a copy of a secret that the other tree catches): seeded bodies of random bytes with
 * copies of a secret in many spellings and short stretches that sway readings far away, through
 * `secretRedactor([secret]).bytes` of this tree and of `<ref>`'s.
 *
 * Prints every body whose answers differ, and whether this tree let through what the other cut
 * (the other tree's redactor finds something in this tree's answer: a miss) or only cut
 * differently. `--same` demands byte-identical answers (for a cut that should change no
 * answer at all).
 *
 * `--kind text`: text bodies through `.text` instead, made of what the sliced passes read whole
 * (words and spaces, floods of `%25` escapes, long base64 and hex runs of text in one run, in
 * lines or cut into pieces, lists of numbers), with copies of the secret inside the runs'
 * text as well as beside them.
 *
 *   npm exec -- node bench/diagnostics/redaction-differential.mjs <ref> [--bodies 300] [--seed 1] [--same] [--kind text]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { archiveTree, bundleTree } from "../support/tree-bundle.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const arg = (name, fallback) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback;
const ref = process.argv[2];
if (!ref || ref.startsWith("--")) throw new Error("usage: redaction-differential.mjs <ref> …");
const bodies = Number(arg("--bodies", "300"));
const seed = Number(arg("--seed", "1"));
const same = process.argv.includes("--same");
const kind = arg("--kind", "bytes");

const dir = mkdtempSync(join(tmpdir(), "redaction-differential-"));
/** A tree's `secretRedactor`, bundled into `dir`. */
const load = async (tree, name) => {
  const file = join(dir, `${name}.mjs`);
  await bundleTree(tree, { "src/codemode/redaction/redaction.ts": ["secretRedactor"] }, file);
  return (await import(pathToFileURL(file).href)).secretRedactor;
};
const current = await load(root, "current");
const theirs = await load(archiveTree(root, ref, join(dir, "other")), "other");
rmSync(dir, { recursive: true });

let state = seed >>> 0 || 1;
const random = () => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 32;
};
const pick = (list) => list[Math.floor(random() * list.length)];
const enc = (text) => new TextEncoder().encode(text);
const hex2 = (c) => c.toString(16).padStart(2, "0");
const rot13 = (s) =>
  s.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

/** Spellings of a secret, as bytes. */
const SPELLINGS = {
  plain: (s) => enc(s),
  percent: (s) => enc([...s].map((c) => `%${hex2(c.charCodeAt(0))}`).join("")),
  percentTwice: (s) => enc([...s].map((c) => `%25${hex2(c.charCodeAt(0))}`).join("")),
  base64: (s) => enc(btoa(s)),
  hex: (s) => enc([...s].map((c) => hex2(c.charCodeAt(0))).join("")),
  hexUpper: (s) => enc([...s].map((c) => hex2(c.charCodeAt(0)).toUpperCase()).join("")),
  utf16le: (s) => Uint8Array.from([...s].flatMap((c) => [c.charCodeAt(0), 0])),
  utf16Percent: (s) => enc([...s].map((c) => `%${hex2(c.charCodeAt(0))}%00`).join("")),
  decimalList: (s) => enc([...s].map((c) => c.charCodeAt(0)).join(",")),
  decimalListLastPercent: (s) => {
    const codes = [...s].map((c) => String(c.charCodeAt(0)));
    const last = codes.pop();
    return enc(`${codes.join(",")},${last.slice(0, -1)}%${hex2(last.charCodeAt(last.length - 1))}`);
  },
  upper: (s) => enc(s.toUpperCase()),
  reversed: (s) => enc([...s].toReversed().join("")),
  entityHex: (s) => enc([...s].map((c) => `&#x${hex2(c.charCodeAt(0))};`).join("")),
  entityDecimal: (s) => enc([...s].map((c) => `&#${c.charCodeAt(0)}`).join("")),
  scriptHex: (s) => enc([...s].map((c) => `\\x${hex2(c.charCodeAt(0))}`).join("")),
  scriptUnicode: (s) => enc([...s].map((c) => `\\u00${hex2(c.charCodeAt(0))}`).join("")),
  scriptBraces: (s) => enc([...s].map((c) => `\\u{${hex2(c.charCodeAt(0))}}`).join("")),
  css: (s) => enc([...s].map((c) => `\\${hex2(c.charCodeAt(0))} `).join("")),
  quotedPrintable: (s) =>
    enc([...s].map((c) => `=${hex2(c.charCodeAt(0)).toUpperCase()}`).join("")),
  softBreaks: (s) => enc(s.match(/.{1,5}/g).join("=\n")),
  escapedDashes: (s) => enc(s.replace(/-/g, "\\-")),
  named: (s) => enc(s.replace(/-/g, "&hyphen;").replace(/[0-9]/, (d) => `&#${d.charCodeAt(0)};`)),
  swallowed: (s) => enc(`%3D${s.slice(0, 2)}%252D${s.slice(2)}`),
  secondStepQp: (s) => enc(`%3D${hex2(s.charCodeAt(0))}${s.slice(1)}`),
  fullWidth: (s) => enc([...s].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join("")),
  fullWidthPercent: (s) =>
    enc(
      [...s]
        .map((c, i) =>
          i === 3 ? `%${hex2(c.charCodeAt(0))}` : String.fromCharCode(c.charCodeAt(0) + 0xfee0),
        )
        .join(""),
    ),
  rot13: (s) => enc(rot13(s)),
  rot13Percent: (s) => enc(rot13([...s].map((c) => `%${hex2(c.charCodeAt(0))}`).join(""))),
  chars: (s) => enc(`[${[...s].map((c) => `"${c}"`).join(", ")}]`),
  nulSpaced: (s) => enc([...s].join("\0")),
  utf16Qp: (s) => enc([...s].map((c) => `=${hex2(c.charCodeAt(0)).toUpperCase()}=00`).join("")),
  spaced: (s) => enc([...s].join(" ")),
  xxd: (s) => {
    const bytes = [...s].map((c) => c.charCodeAt(0));
    const lines = [];
    for (let o = 0; o < bytes.length; o += 16) {
      const row = bytes.slice(o, o + 16);
      const cells = [];
      for (let k = 0; k < row.length; k += 2)
        cells.push(
          row
            .slice(k, k + 2)
            .map(hex2)
            .join(""),
        );
      lines.push(
        `${o.toString(16).padStart(8, "0")}: ${cells.join(" ")}  ${String.fromCharCode(...row)}`,
      );
    }
    return enc(`\n${lines.join("\n")}\n`);
  },
};
/** Short stretches that decide something far away (a family read, a NUL-free view, …). */
const STRETCHES = [
  "=41",
  "%41",
  "&#65;",
  "\\x41",
  "\\41 ",
  "=\0 4\0 1",
  "%G1",
  "&\xff",
  "= x",
  "37,37,37,37",
  "1\xa0",
  "%4n",
  "=\n",
  "％４１",
  "%u0041",
  "\\u0041",
  "%00",
  "\n0000000 ",
];

const names = Object.keys(SPELLINGS);
const latin1 = (bytes) => String.fromCharCode(...bytes);
const WORDS = [
  "lorem",
  "ipsum",
  "dolor",
  "sit",
  "amet",
  "id",
  "12",
  "0x1f",
  "a,b",
  "é",
  "ｆｕｌｌ",
];
const words = (length) => {
  let out = "";
  while (out.length < length) out += pick(WORDS) + pick([" ", " ", "\n", "  ", ", "]);
  return out;
};
/** Text with copies of the secret in ASCII spellings, as a run encoding's payload. */
const payload = (secret, length) => {
  let out = words(length);
  for (let k = Math.floor(random() * 3); k > 0; k--) {
    const copy = latin1(SPELLINGS[pick(ASCII_SPELLINGS)](secret));
    const at = Math.floor(random() * out.length);
    out = out.slice(0, at) + copy + out.slice(at);
  }
  return out.replace(/[^\0-\x7f]/g, "e");
};
const ASCII_SPELLINGS = names.filter((name) => !/fullWidth|utf16le|nulSpaced/.test(name));
const hexOf = (text) => [...text].map((c) => hex2(c.charCodeAt(0))).join("");
/** A piece of a text body, by kind. */
const PIECES = {
  words: (secret, length) => words(length),
  flood: (secret, length) => "%2541%25%41a%2525".repeat(Math.ceil(length / 17)).slice(0, length),
  base64Run: (secret, length) => btoa(payload(secret, (length * 3) >> 2)),
  base64Lines: (secret, length) =>
    btoa(payload(secret, (length * 3) >> 2)).replace(/.{76}/g, pick(["$&\n", "$&\\n", "$&\r\n"])),
  base64Cut: (secret, length) =>
    btoa(payload(secret, (length * 3) >> 2)).replace(/.{39}(?!$)/g, "$& "),
  hexRun: (secret, length) => hexOf(payload(secret, length >> 1)),
  numbers: (secret, length) =>
    Array.from({ length: Math.ceil(length / 3) }, () => Math.floor(random() * 128)).join(
      pick([" ", ",", ", "]),
    ),
  copy: (secret) => latin1(SPELLINGS[pick(names)](secret)),
};
const pieceNames = Object.keys(PIECES);
/**
 * The next body's secret (an 8-character one or a canary token) and size (64–264 k), drawn from
 * the seeded stream in the same order for both kinds, so a seed names the same bodies as before.
 */
function nextBody() {
  const secret =
    random() < 0.3
      ? Array.from({ length: 8 }, () => pick("abcdefghijkmnpqrstuvwxyz0123456789")).join("")
      : `cf-canary-token-${Math.floor(random() * 2 ** 32)
          .toString(16)
          .padStart(8, "0")}`;
  return { secret, size: 64_000 + Math.floor(random() * 200_000) };
}
if (kind === "text") {
  let [differ, misses, identical, cut] = [0, 0, 0, 0];
  for (let b = 0; b < bodies; b++) {
    const { secret, size } = nextBody();
    const used = [];
    let body = "";
    while (body.length < size) {
      const name = pick(pieceNames);
      used.push(name);
      body += PIECES[name](secret, 1000 + Math.floor(random() * (size / 2)));
      if (random() < 0.3) body += pick(STRETCHES);
    }
    const [mine, main] = [current([secret]), theirs([secret])];
    const [a, m] = [mine.text(body), main.text(body)];
    if (m !== body) cut++;
    if (a === m) {
      identical++;
      continue;
    }
    differ++;
    const missed = main.text(a) !== a;
    if (missed) misses++;
    console.log(
      `body ${b} (${body.length} characters, ${[...new Set(used)].join(", ")}): answers differ${missed ? ", MISSED what the other tree cuts" : ""}`,
    );
  }
  console.log(
    `${bodies} text bodies (seed ${seed}) against ${ref}: ${cut} cut by it, ${identical} identical, ${differ} differ, ${misses} missed`,
  );
  process.exit(misses > 0 || (same && differ > 0) ? 1 : 0);
}
let [differ, misses, identical, cut] = [0, 0, 0, 0];
for (let b = 0; b < bodies; b++) {
  const { secret, size } = nextBody();
  const body = new Uint8Array(size);
  for (let i = 0; i < size; i++) body[i] = Math.floor(random() * 256);
  const printable = random() < 0.2;
  if (printable)
    for (let i = 0; i < size; i++) if (random() < 0.3) body[i] = 32 + Math.floor(random() * 95);
  const used = [];
  const copies = 1 + Math.floor(random() * 4);
  for (let k = 0; k < copies; k++) {
    const name = pick(names);
    used.push(name);
    const copy = SPELLINGS[name](secret);
    body.set(copy, Math.floor(random() * (size - copy.length)));
    for (let s = Math.floor(random() * 3); s > 0; s--) {
      const stretch = enc(pick(STRETCHES));
      body.set(stretch, Math.floor(random() * (size - stretch.length)));
    }
  }
  const [mine, main] = [current([secret]), theirs([secret])];
  const a = mine.bytes(body);
  const m = main.bytes(body);
  const equal = a.length === m.length && a.every((x, i) => x === m[i]);
  if (m.length !== body.length || !m.every((x, i) => x === body[i])) cut++;
  if (equal) {
    identical++;
    continue;
  }
  differ++;
  // A miss: the other tree still finds (and cuts) something in this tree's answer.
  const again = main.bytes(a);
  const missed = again.length !== a.length || !again.every((x, i) => x === a[i]);
  if (missed) misses++;
  console.log(
    `body ${b} (${size} bytes, ${used.join(", ")}): answers differ${missed ? ", MISSED what the other tree cuts" : ""}`,
  );
}
console.log(
  `${bodies} bodies (seed ${seed}) against ${ref}: ${cut} cut by it, ${identical} identical, ${differ} differ, ${misses} missed`,
);
if (misses > 0 || (same && differ > 0)) process.exit(1);
