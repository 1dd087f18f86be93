/**
 * Redaction cost of an ordinary response: `toApiResult` (what every `codemode.request()` answer
 * goes through before the sandbox sees it) on 0.5 MB of API-like JSON with no secret in it, with
 * a long credential (a bearer token) and with an 8-character one (the shortest allowed, which
 * makes more views worth searching). Bundles the source with esbuild and runs it in this Node
 * (V8, like workerd; workerd's native TextDecoder makes the absolute figures differ).
 *
 * `--against <git ref>` also bundles that commit's `src/` and interleaves the two, so a loaded
 * machine slows both alike: compare the ratio, not the milliseconds.
 *
 * `--heavy`: the 4 MB rows instead (see below); `--heavy --memory`: their peak memory, one fresh
 * process per body and tree; `--heavy --rows <text>`: only the rows whose label holds the text.
 *
 * `--request`: the credential check over a request a program sends instead (see below).
 *
 * Run: `npm exec -- node bench/redaction.mjs [--against main] [--heavy | --request]` (Node 22 from
 * the `node` devDependency).
 */
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "redaction-bench-"));
const against = process.argv.includes("--against")
  ? process.argv[process.argv.indexOf("--against") + 1]
  : undefined;

async function load(srcRoot, name) {
  const outfile = join(dir, `${name}.mjs`);
  await build({
    // Trees from before src/codemode got rooms keep it at the top of src/codemode.
    entryPoints: [
      ["src/codemode/request/api-response.ts", "src/codemode/api-response.ts"]
        .map((path) => join(srcRoot, path))
        .find((path) => existsSync(path)) ?? join(srcRoot, "src/codemode/request/api-response.ts"),
    ],
    bundle: true,
    format: "esm",
    platform: "neutral",
    outfile,
    logLevel: "error",
  });
  return (await import(pathToFileURL(outfile).href)).toApiResult;
}

/**
 * `--request`: the credential check over what a program sends (issue #41, sliced and charged to
 * the run for issue #40): apiRequester, the host function behind `codemode.request()`, one per
 * run as `execute` builds it, called once with the request, its callback answering at once.
 */
async function loadRequester(srcRoot, name) {
  const entry = join(dir, `${name}-requester-entry.ts`);
  writeFileSync(
    entry,
    `export { apiRequester } from ${JSON.stringify(join(srcRoot, "src/codemode/api-requester.ts"))};\n` +
      `export { loadSpec } from ${JSON.stringify(join(srcRoot, "src/openapi/openapi-spec.ts"))};\n`,
  );
  const outfile = join(dir, `${name}-requester.mjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile,
    logLevel: "error",
  });
  return await import(pathToFileURL(outfile).href);
}

const requesting = process.argv.includes("--request");
const sides = {};
const requesters = {};
let old;
if (against) {
  old = join(dir, "against");
  execFileSync("sh", [
    "-c",
    `mkdir -p "${old}" && git -C "${root}" archive "${against}" src | tar -x -C "${old}"`,
  ]);
}
if (requesting) {
  requesters.current = await loadRequester(root, "current");
  if (against) requesters[against] = await loadRequester(old, "against");
} else {
  sides.current = await load(root, "current");
  if (against) sides[against] = await load(old, "against");
}
rmSync(dir, { recursive: true });

if (requesting) {
  const spec = requesters.current.loadSpec({
    openapi: "3.0.3",
    info: { title: "notes", version: "1" },
    paths: {
      "/notes": {
        post: {
          operationId: "post",
          requestBody: {
            content: { "application/json": { schema: {} }, "text/plain": { schema: {} } },
          },
          responses: { 201: { description: "ok" } },
        },
      },
    },
  });
  const words = "abcdefghij ".repeat(95_326); // 1 MiB
  const requests = {
    "a small JSON request": { method: "POST", path: "/notes", body: { note: "an ordinary note" } },
    "a 1 MiB raw body of words": {
      method: "POST",
      path: "/notes",
      rawBody: words,
      contentType: "text/plain",
    },
    "a 1 MiB raw body of `%2541%25%41a%2525`": {
      method: "POST",
      path: "/notes",
      rawBody: "%2541%25%41a%2525".repeat(65_536),
      contentType: "text/plain",
    },
  };
  const secrets = Object.freeze([
    "Bearer cf-canary-token-6f1d2c9a8b7e",
    "cf-canary-token-6f1d2c9a8b7e",
  ]);
  const none = Object.freeze([]);
  const signal = new AbortController().signal;
  const names = Object.keys(requesters);
  /** CPU ms of one call by a fresh requester (one run), and its wall ms. */
  const once = async (name, request, withSecrets) => {
    const { apiRequester } = requesters[name];
    const requester = apiRequester({
      spec,
      handler: () => ({ status: 201, body: { ok: true } }),
      validate: true,
      secrets: withSecrets ? secrets : none,
      mcp: {},
    });
    // Another task's turns meanwhile: the longest gap between two is how long the call held
    // the thread at once.
    let [last, held] = [performance.now(), 0];
    const other = setInterval(() => {
      const now = performance.now();
      held = Math.max(held, now - last);
      last = now;
    }, 0);
    const start = (last = performance.now());
    const used = process.cpuUsage();
    await requester(request, signal);
    const { user, system } = process.cpuUsage(used);
    const end = performance.now();
    clearInterval(other);
    return [(user + system) / 1000, end - start, Math.max(held, end - last)];
  };
  console.log(
    "apiRequester, one call per run: CPU min of the rounds (the check: with secrets less without); wall and longest hold of the thread: medians",
  );
  for (const [label, request] of Object.entries(requests)) {
    const rounds = label.includes("small") ? 400 : 8;
    const cpu = Object.fromEntries(
      names.flatMap((n) => [
        [`${n} on`, []],
        [`${n} off`, []],
      ]),
    );
    const wall = Object.fromEntries(names.map((n) => [n, []]));
    const holds = Object.fromEntries(names.map((n) => [n, []]));
    for (let round = 0; round < rounds + 1; round++)
      for (const name of round % 2 ? names : names.toReversed())
        for (const on of [true, false]) {
          const [ms, w, h] = await once(name, request, on);
          if (round === 0) continue;
          cpu[`${name} ${on ? "on" : "off"}`].push(ms);
          if (on) wall[name].push(w);
          if (on) holds[name].push(h);
        }
    const min = (list) => Math.min(...list);
    const median = (list) => list.toSorted((a, b) => a - b)[list.length >> 1];
    const unit = label.includes("small") ? 1000 : 1;
    const shown = (ms) => (unit === 1000 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(1)} ms`);
    const row = names
      .map((name) => {
        const [on, off] = [min(cpu[`${name} on`]), min(cpu[`${name} off`])];
        return `${name} check ${shown(on - off)} (call ${shown(on)}, without secrets ${shown(off)}; wall ${shown(median(wall[name]))}, thread held at once ≤ ${shown(median(holds[name]))})`;
      })
      .join("; ");
    console.log(`${label}: ${row}`);
  }
  process.exit(0);
}

/** About 0.5 MB of API-like JSON: ids, names, URLs with queries, escapes, nested settings. */
function body() {
  const records = [];
  for (let i = 0, size = 0; size < 500_000; i++) {
    const record = {
      id: `0a1b2c3d4e5f${(i * 7919).toString(16).padStart(8, "0")}`,
      name: `record-${i}.example.com`,
      status: i % 3 ? "active" : "pending",
      created_on: new Date(1_700_000_000_000 + i * 60_000).toISOString(),
      url: `https://api.example.com/client/v4/zones/${i}/dns_records?page=${i % 10}&per_page=50`,
      meta: { auto_added: i % 2 === 0, source: "primary", ttl: 300 + i, tags: ["a", "b"] },
      description: `Record number ${i}: "quoted" text\nwith a newline and a path C:\\data`,
    };
    records.push(record);
    size += JSON.stringify(record).length + 1;
  }
  return JSON.stringify({ success: true, errors: [], messages: [], result: records });
}

/**
 * `--heavy`: the cost on a 4 MB body (issue #40's bound: at most 100 ms of the host's thread per
 * MB), for an ordinary JSON body and for bodies a hostile program can make an echoing API return:
 * nothing but percent sequences (`%25`, 1.3 million of them), sequences that decode again
 * (`%2541`), and a mix of every family with text between. Median of 5 runs after one warm-up.
 */
if (process.argv.includes("--heavy")) {
  const MB = 4_000_000;
  const fill = (unit) => unit.repeat(Math.floor(MB / unit.length));
  const big = () => {
    const one = body();
    return `[${Array.from({ length: Math.ceil(MB / one.length) }, () => one).join(",")}]`;
  };
  const noise = (length) => {
    const out = new Uint8Array(length);
    let state = 7;
    for (let i = 0; i < length; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      out[i] = state >>> 24;
    }
    return out;
  };
  const cjk = () => {
    const unit =
      '{"名前":"東京都千代田区","説明":"ｆｕｌｌ ｗｉｄｔｈ テキスト 中文字符","id":12345},';
    return `[${unit.repeat(Math.floor(MB / Buffer.byteLength(unit)))}0]`;
  };
  const heavy = {
    "4 MB of ordinary JSON": [big(), "application/json"],
    "4 MB of %25": [fill("%25"), "text/plain"],
    "4 MB of %2541": [fill("%2541"), "text/plain"],
    "4 MB of mixed sequences": [fill("a%25b%2541&#37;\\x25=25 "), "text/plain"],
    // What test/e2e/heavy-bodies.mjs reads (issue #40): `%25` spellings that decode twice.
    "4 MB of `%2541%25%41a%2525`": [fill("%2541%25%41a%2525"), "text/plain"],
    // Small numbers: every one is a list item (issue #41's review: ~530 ms/MB).
    "4 MB of `12 12 12 …`": [fill("12 "), "text/plain"],
    "4 MB of words": [fill("abcdefghij "), "text/plain"],
    // Percent sequences written in ROT13 (`%6S` is `%6F`): the ROT13 view is decoded too.
    "4 MB of `%6S` (ROT13 of `%6F`)": [fill("%6S"), "text/plain"],
    // A UTF-8 text answer beyond ASCII (4 MB of bytes, not characters): its bytes hold UTF-8
    // multi-byte sequences, which the byte search reads as UTF-8 unless the text search does.
    "4 MB of CJK and full-width JSON (UTF-8)": [cjk(), "application/json; charset=utf-8"],
    // A binary answer (an image, an archive): a few hundred chance sequences per MB, each
    // decoding step and NUL-free view a few changes in 4 MB (a fixed generator).
    "4 MB of random bytes": [noise(MB), "application/octet-stream"],
  };
  const secrets = Object.freeze([
    "Bearer cf-canary-token-6f1d2c9a8b7e",
    "cf-canary-token-6f1d2c9a8b7e",
  ]);
  const names = Object.keys(sides);
  // `--rows <text>`: only the rows whose label holds it (a row takes minutes on a loaded machine).
  const only = process.argv.includes("--rows")
    ? process.argv[process.argv.indexOf("--rows") + 1]
    : undefined;
  const memoryOne = process.argv.indexOf("--memory-one");
  if (memoryOne > 0) {
    // In a fresh process: the peak RSS growth over one call (what the host pays at most).
    const [label, name, bare] = process.argv.slice(memoryOne + 1, memoryOne + 4);
    const [payload, type] = heavy[label];
    const response = new Response(payload, { headers: { "content-type": type } });
    globalThis.gc?.();
    const before = process.resourceUsage().maxRSS;
    // "bare": no secret configured, so no redaction: what reading the body costs anyway.
    await sides[name](response, bare === "bare" ? Object.freeze([]) : secrets);
    console.log(String((process.resourceUsage().maxRSS - before) / 1024));
    process.exit(0);
  }
  if (process.argv.includes("--memory")) {
    // One fresh process per body and tree: a peak is only seen once per process.
    const args = process.argv.slice(1).filter((arg) => arg !== "--memory");
    for (const label of Object.keys(heavy)) {
      if (only !== undefined && !label.includes(only)) continue;
      const peak = (name, bare) =>
        Number(
          execFileSync(
            process.execPath,
            ["--expose-gc", "--max-semi-space-size=1", ...args, "--memory-one", label, name, bare],
            { encoding: "utf8" },
          )
            .trim()
            .split("\n")
            .pop(),
        );
      const row = names.map((name) => {
        const [mb, bare] = [peak(name, "secrets"), peak(name, "bare")];
        const share = mb - bare;
        return `${name} +${mb.toFixed(0)} MB peak RSS, ${bare.toFixed(0)} MB without redaction: redaction ${share.toFixed(0)} MB (${(share / 4).toFixed(1)}× the body)`;
      });
      console.log(`toApiResult, ${label}: ${row.join(", ")}`);
    }
    process.exit(0);
  }
  for (const [label, [payload, type]] of Object.entries(heavy)) {
    if (only !== undefined && !label.includes(only)) continue;
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    const cpu = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < 6; round++)
      for (const name of round % 2 ? names : names.toReversed()) {
        const response = new Response(payload, { headers: { "content-type": type } });
        const start = performance.now();
        const used = process.cpuUsage();
        await sides[name](response, secrets);
        if (round > 0) {
          samples[name].push(performance.now() - start);
          const { user, system } = process.cpuUsage(used);
          cpu[name].push((user + system) / 1000);
        }
      }
    const median = (list) => list.toSorted((a, b) => a - b)[list.length >> 1];
    const mb = Buffer.byteLength(payload) / 1e6;
    const row = names
      .map((name) => {
        const ms = median(samples[name]);
        const cpuMs = Math.min(...cpu[name]);
        return `${name} ${ms.toFixed(0)} ms (${(ms / mb).toFixed(0)} ms/MB; CPU min ${cpuMs.toFixed(0)} ms, ${(cpuMs / mb).toFixed(0)}/MB)`;
      })
      .join(", ");
    console.log(`toApiResult, ${label}: ${row}`);
  }
  process.exit(0);
}

const text = body();
const cases = {
  "bearer token": Object.freeze([
    "Bearer cf-canary-token-6f1d2c9a8b7e",
    "cf-canary-token-6f1d2c9a8b7e",
  ]),
  "8-character secret": Object.freeze(["k9Xq2wLp"]),
};
console.log(
  `body: ${(text.length / 1e6).toFixed(2)} MB of JSON, no secret in it; median ms of 40 runs`,
);
for (const [label, secrets] of Object.entries(cases)) {
  const samples = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
  const names = Object.keys(sides);
  for (let round = 0; round < 50; round++) {
    for (const name of round % 2 ? names : names.toReversed()) {
      const response = new Response(text, { headers: { "content-type": "application/json" } });
      const start = performance.now();
      await sides[name](response, secrets);
      if (round >= 10) samples[name].push(performance.now() - start);
    }
  }
  const median = (list) => list.toSorted((a, b) => a - b)[list.length >> 1];
  const row = names.map((name) => `${name} ${median(samples[name]).toFixed(2)}`).join(", ");
  const ratio = against
    ? ` (${(median(samples.current) / median(samples[against])).toFixed(2)}×)`
    : "";
  console.log(`toApiResult, ${label}: ${row}${ratio}`);
}
