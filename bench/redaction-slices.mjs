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
for (let round = 0; round < rounds; round++) {
  for (const [k, redactor] of redactors.entries()) {
    let [last, longest, pauses] = [process.cpuUsage(), 0, 0];
    const start = process.cpuUsage();
    await redactor.cleanTextInSlices(body, async () => {
      longest = Math.max(longest, cpuMs(last));
      pauses++;
      last = process.cpuUsage();
    });
    longest = Math.max(longest, cpuMs(last));
    const perM = (cpuMs(start) / body.length) * 1e6;
    console.log(
      `${trees[k]} ${name}: ${perM.toFixed(0)} ms/M chars, longest slice ${longest.toFixed(0)} ms, ${pauses} pauses, load ${loadavg()[0].toFixed(1)}`,
    );
  }
}
