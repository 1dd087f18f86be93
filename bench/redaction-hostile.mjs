/**
 * Bodies built against the redactor's readings (attack5, session 24): what a reading misses and
 * what a body shaped for it costs. Bundles `src/codemode/request/api-response.ts` of a tree (this
 * one, or `--tree <dir>`: another worktree, to compare branches) and runs `toApiResult` in this
 * Node.
 *
 * `--slips`: which copies of a secret in three run encodings (and the one such copy cut into
 * pieces of 39 characters) come back unredacted, per secret length.
 * `--cost <body>`: ms per MB (3 calls) and peak RSS of one 1 MB body shaped for the run-decoded
 * view: `plain` (JSON), `b64` (base64 of it), `b64nl` (a line break after every character),
 * `b64esc` (the same as a JSON string: a `\n` escape after every character), `hexnl`, `nest3nl`,
 * `sha1` (a JSON list of commit ids), `samples` (spaced 40-letter runs of `[a-f2-7]`).
 * Peak RSS is the process's: run one body per process (with `--expose-gc`). Each body is built
 * once into `redaction-hostile-<body>.txt` in the system's temp folder (delete it after changing
 * a shape).
 *
 * Run: `npm exec -- node --expose-gc bench/redaction-hostile.mjs --cost b64esc [--tree ../spell5]`
 */
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const argv = process.argv;
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const tree = resolve(option("--tree") ?? fileURLToPath(new URL("..", import.meta.url)));
const dir = mkdtempSync(join(tmpdir(), "redaction-hostile-"));
const outfile = join(dir, "api-response.mjs");
await build({
  entryPoints: [join(tree, "src/codemode/request/api-response.ts")],
  bundle: true,
  format: "esm",
  platform: "neutral",
  outfile,
  logLevel: "error",
});
const { toApiResult } = await import(pathToFileURL(outfile).href);
rmSync(dir, { recursive: true });

const b64 = (s) => Buffer.from(s, "latin1").toString("base64");
const sha1 = (s) => createHash("sha1").update(s).digest("latin1");
const hex = (s) => Buffer.from(s, "latin1").toString("hex");
const pct = (s) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
const spaced = (s, sep) => s.split("").join(sep);
const pieces = (s, n) => s.match(new RegExp(`.{1,${n}}`, "g")).join(" ");
const redacted = async (body, secret) => {
  const response = new Response(body, { headers: { "content-type": "application/json" } });
  return JSON.stringify(await toApiResult(response, [secret]));
};

if (argv.includes("--slips")) {
  const forms = {
    "b64 b64 b64": (s) => b64(b64(b64(s))),
    "hex b64 b64": (s) => hex(b64(b64(s))),
    "b64 hex b64": (s) => b64(hex(b64(s))),
    "b64 b64 pct": (s) => b64(b64(pct(s))),
    "b64 b64 pct, 39-char pieces": (s) => pieces(b64(b64(pct(s))), 39),
  };
  for (const secret of ["k9Xq2wLp", "k9Xq2wLpA7zR", "k9Xq2wLpA7zRm4Tv", "k9Xq2wLpA7zRm4Tv8bNc"]) {
    const row = [];
    for (const [name, form] of Object.entries(forms)) {
      const text = form(secret);
      const out = await redacted(JSON.stringify({ data: text }), secret);
      row.push(`${name} (${text.length}): ${out.includes(text) ? "SLIPS" : "held"}`);
    }
    console.log(`${secret.length}-char secret | ${row.join(" | ")}`);
  }
}

const which = option("--cost");
if (which) {
  const MB = 1_000_000;
  let json = "";
  for (let i = 0; json.length < MB; i++)
    json += `{"id":${i},"name":"item ${i}","note":"lorem ipsum dolor"},`;
  // The longest prefix of the JSON whose shaped body stays within 1 MB.
  const fit = (shape) => {
    let [lo, hi] = [1, MB];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (shape(json.slice(0, mid)).length <= MB) lo = mid;
      else hi = mid - 1;
    }
    return shape(json.slice(0, lo));
  };
  const shapes = {
    plain: (t) => t,
    b64: (t) => b64(t),
    b64nl: (t) => spaced(b64(t), "\n"),
    b64esc: (t) => JSON.stringify({ d: spaced(b64(t), "\n") }),
    hexnl: (t) => spaced(hex(spaced(b64(t), "\n")), "\n"),
    nest3nl: (t) => spaced(b64(spaced(b64(spaced(b64(pct(t)), "\n")), "\n")), "\n"),
    // An ordinary body: a JSON list of SHA-1 hashes (commit ids), 40 hex digits each.
    sha1: (t) => {
      const ids = [];
      for (let i = 0, n = 0; n < t.length; i++, n += 43) ids.push(hex(sha1(String(i))));
      return JSON.stringify(ids);
    },
    // Runs of 40 letters every alphabet holds, none decoding to text: every sample tried.
    samples: (t) => {
      let [out, seed] = ["", 1];
      for (let i = 0; i < t.length; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        out += i % 41 === 40 ? " " : "abcdef234567"[seed % 12];
      }
      return out;
    },
  };
  // Built in its own process and kept in a file: building it peaks above what redaction takes.
  const file = join(tmpdir(), `redaction-hostile-${which}.txt`);
  if (argv.includes("--build")) {
    writeFileSync(file, fit(shapes[which]), "latin1");
    process.exit(0);
  }
  if (!existsSync(file))
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--cost", which, "--build"]);
  const body = readFileSync(file, "latin1");
  globalThis.gc?.();
  const before = process.resourceUsage().maxRSS;
  const ms = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    await redacted(body, "k9Xq2wLp");
    ms.push(performance.now() - start);
  }
  const grown = (process.resourceUsage().maxRSS - before) / 1024;
  console.log(
    `${which}: ${(body.length / MB).toFixed(2)} MB, ms ${ms.map((t) => t.toFixed(0)).join(" ")}, min ${(Math.min(...ms) / (body.length / MB)).toFixed(0)} ms/MB, peak RSS +${grown.toFixed(0)} MB`,
  );
}
