/**
 * How long the sliced redaction holds the thread between two pauses (issue #40): runs
 * `cleanTextInSlices` of a tree's `secretRedactor` over a hostile body and times (CPU, this
 * process) every stretch between pauses. Prints the whole call's CPU ms per M characters and
 * the longest stretch, per round; with `--against <dir>` the two trees alternate round by round.
 *
 * Bodies (4.2 M characters): `tag` (U+E0074 `ÿ` × 1.4 M: both tag views walk all of it), `dump`
 * (`\n0000000 ÿ` × 420,000: every line a dump line's start), and bodies full of copies of the
 * secret, each found, mapped back and cut out: `copies` (back to back), `copies-spaced`,
 * `copies-percent`, `copies-base64`, `copies-hex`, `copies-mixed` (five spellings in turn).
 * `--secret <text>` sets the secret (`tag --secret tttttttttttt`: a copy at every position of
 * the tag view).
 *
 * Also `percent` (the e2e's body), `base64-run` and `base64-lines` (text in base64, one run or
 * lines of it), `random` (random bytes), `fullwidth`, `words`. `--bytes` redacts the body as
 * bytes (`cleanBytesInSlices`); `--profile` prints the functions that spent the longest slice.
 *
 * Run: `npm exec -- node bench/redaction-slices.mjs tag [--against ../main] [--rounds 5]`
 */
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const argv = process.argv;
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

/** The `secretRedactor` of a tree, bundled for this Node. */
async function redactorOf(tree) {
  const dir = mkdtempSync(join(tmpdir(), "redaction-slices-"));
  const outfile = join(dir, "redaction.mjs");
  await build({
    stdin: {
      contents: `export { secretRedactor } from "./src/codemode/redaction/redaction.ts";`,
      resolveDir: tree,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "neutral",
    outfile,
    logLevel: "error",
  });
  const { secretRedactor } = await import(pathToFileURL(outfile).href);
  rmSync(dir, { recursive: true });
  return secretRedactor([SECRET]);
}

const SECRET = option("--secret") ?? "k9Xq2wLpA7zRm4Tv";
const hex = [...SECRET].map((c) => c.charCodeAt(0).toString(16)).join("");
/** `unit` repeated to 4.2 M characters. */
const fill = (unit) => unit.repeat(Math.ceil(4_200_000 / unit.length));
const bodies = {
  // With `--secret tttttttttttt` a copy starts at every position of the tag view.
  tag: () => `${String.fromCodePoint(0xe0074)}ÿ`.repeat(1_400_000),
  dump: () => "\n0000000 ÿ".repeat(420_000),
  // Copies of the secret, back to back, in one spelling each: every one is found and mapped
  // back to the body, then cut out (issue #40: the work of a slice grew with the copies found).
  copies: () => fill(SECRET),
  "copies-spaced": () => fill(`${SECRET} `),
  "copies-percent": () => fill([...SECRET].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")),
  "copies-base64": () => fill(`${btoa(SECRET)} `),
  "copies-hex": () => fill(`${hex} `),
  // The e2e's body (test/e2e/heavy-bodies.mjs): escapes decoded twice over.
  percent: () => fill("%2541%25%41a%2525"),
  // One base64 run of text (4.2 M characters, no line break): the run-decoded view reads it whole.
  "base64-run": () => btoa(fill("Lorem ipsum dolor sit amet, consectetur. ")).slice(0, 4_200_000),
  // The same run in 76-character lines, as a mail or PEM body carries it.
  "base64-lines": () =>
    btoa(fill("Lorem ipsum dolor sit amet, consectetur. "))
      .slice(0, 4_100_000)
      .replace(/.{76}/g, "$&\n"),
  // Seeded random bytes (xorshift32), read one character per byte; with `--bytes` as bytes.
  random: () => {
    let [x, out] = [0x9e3779b9, new Uint8Array(4_194_304)];
    for (let i = 0; i < out.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[i] = x & 0xff;
    }
    let text = "";
    for (let k = 0; k < out.length; k += 8192)
      text += String.fromCharCode(...out.subarray(k, k + 8192));
    return text;
  },
  // Full-width letters and ideographic spaces: every character folded by the compact view.
  fullwidth: () => fill("\uff41\uff42\uff43\u3000"),
  // ASCII words and spaces: the compact view of ASCII text drops a space every 4 characters.
  words: () => fill("abc "),
  "copies-mixed": () =>
    fill(
      `${SECRET} %${hex.match(/../g).join("%")} ${btoa(SECRET)} ${hex} ${[...SECRET].toReversed().join("")}\n`,
    ),
};
const name = argv[2] ?? "tag";
const body = bodies[name]?.();
if (!body) throw new Error(`a body: ${Object.keys(bodies).join(", ")}`);
const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const trees = [fileURLToPath(new URL("..", import.meta.url)), option("--against")]
  .filter(Boolean)
  .map((tree) => resolve(tree));
const redactors = await Promise.all(trees.map(redactorOf));
const rounds = Number(option("--rounds") ?? 3);
// `--bytes`: the body as bytes (one byte per character when every one fits, else UTF-8) through
// `cleanBytesInSlices`, as the host redacts a body it hands over as bytes.
const asBytes = argv.includes("--bytes");
const bytes = asBytes
  ? /^[\0-\xff]*$/.test(body)
    ? Uint8Array.from(body, (c) => c.charCodeAt(0))
    : new TextEncoder().encode(body)
  : undefined;
// `--profile`: a CPU profile of every round, and the functions that spent most of the longest
// slice (self time of the samples between its two pauses).
const profiling = argv.includes("--profile");
const session = profiling ? new (await import("node:inspector")).Session() : undefined;
const post = (method, params) =>
  new Promise((done, fail) =>
    session.post(method, params, (error, result) => (error ? fail(error) : done(result))),
  );
if (session) {
  session.connect();
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 200 });
}
/** Microseconds on the profiler's clock (the monotonic clock). */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** The functions with the most self time between `from` and `to` (µs) of a profile. */
function topFunctions(profile, from, to) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, k) => {
    at += profile.timeDeltas[k];
    if (at < from || at > to) return;
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const where = `${functionName || "(anonymous)"} ${url.split("/").pop()}:${lineNumber + 1}`;
    self.set(where, (self.get(where) ?? 0) + 1);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  return [...self]
    .toSorted((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([where, n]) => `    ${((100 * n) / total).toFixed(0)}% ${where}`)
    .join("\n");
}

for (let round = 0; round < rounds; round++) {
  for (const [k, redactor] of redactors.entries()) {
    let [last, longest, pauses] = [process.cpuUsage(), 0, 0];
    let [sliceStart, longestAt] = [nowUs(), [0, 0]];
    const endSlice = () => {
      const ms = cpuMs(last);
      if (ms > longest) [longest, longestAt] = [ms, [sliceStart, nowUs()]];
    };
    if (session) await post("Profiler.start");
    const start = process.cpuUsage();
    const pause = async () => {
      endSlice();
      pauses++;
      last = process.cpuUsage();
      sliceStart = nowUs();
    };
    if (bytes) await redactor.cleanBytesInSlices(bytes, undefined, pause);
    else await redactor.cleanTextInSlices(body, pause);
    endSlice();
    const perM = (cpuMs(start) / body.length) * 1e6;
    console.log(
      `${trees[k]} ${name}${bytes ? " (bytes)" : ""}: ${perM.toFixed(0)} ms/M chars, longest slice ${longest.toFixed(0)} ms, ${pauses} pauses, load ${loadavg()[0].toFixed(1)}`,
    );
    if (session) {
      const { profile } = await post("Profiler.stop");
      console.log(topFunctions(profile, longestAt[0], longestAt[1]));
    }
  }
}
