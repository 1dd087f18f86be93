/**
 * What the host's redaction of random-byte bodies allocates and costs (issue #40): the e2e's
 * bodies (test/e2e/heavy-bodies.mjs, `HEAVY_BODIES_KIND=random`: 4 × 4 MiB of seeded xorshift32
 * bytes) through `toApiResult` with one run's budget of forced collections, in a fresh Node
 * process per tree and round with the host's flags (`--expose-gc --max-semi-space-size=2`).
 *
 * Allocated bytes are counted from `--trace-gc-nvp`: every collection reports `allocated=`, the
 * bytes allocated since the one before it; their sum between a collection before the bodies and
 * one after them is what the bodies allocated (young and old generation, large objects too).
 * Also: scavenges and full collections, their pause time (wall), CPU per MiB, the peak RSS
 * growth over the 4 bodies, and how many optimized functions a collection threw away
 * (`--trace-deopt`'s "weak objects": code whose maps died; V8 compiles them again later).
 *
 * `--kind percent`: the e2e's other kind instead, 4 × 4 MiB of `%2541%25%41a%2525` as text/plain.
 * `--bodies <n>` and `--body-mib <m>`: how many bodies one run reads, and their size (default 4
 * of 4 MiB; e.g. 8 of 4, past the fixed 24 forced collections a run once had, or 30 of 1).
 *
 *   npm exec -- node bench/diagnostics/random-body-alloc.mjs [--against <ref>] [--rounds 3] [--kind percent] [--bodies 4] [--body-mib 4]
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  percentBody as percentText,
  randomBody as randomBytes,
} from "../../test/e2e/support/heavy-body-kinds.mjs";
import { archiveTree, bundleTree } from "../support/tree-bundle.mjs";

/** The value after `name` on the command line (the parent passes them on to each child). */
const arg = (name, fallback) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback;
const BODY_BYTES = Number(arg("--body-mib", "4")) * 1024 * 1024;
const BODIES = Number(arg("--bodies", "4"));
const SECRETS = Object.freeze([
  "Bearer cf-canary-token-6f1d2c9a8b7e",
  "cf-canary-token-6f1d2c9a8b7e",
]);

/** Body `n` as the e2e makes it (test/e2e/support/heavy-body-kinds.mjs). */
const randomBody = (n) => randomBytes(n, BODY_BYTES);

/** Body `n` of the e2e's percent kind (the same for every `n`), as bytes. */
const percentBody = () => new TextEncoder().encode(percentText(BODY_BYTES));

const percent = process.argv.includes("percent");
const TYPE = percent ? "text/plain" : "application/octet-stream";
const child = process.argv.indexOf("--child");
if (child > 0) {
  const { toApiResult, collectionBudget } = await import(
    pathToFileURL(process.argv[child + 1]).href
  );
  const bodies = Array.from({ length: BODIES }, (_, n) =>
    percent ? percentBody() : randomBody(n),
  );
  // A warm-up on a small body of the same kind: the code compiled, as in a host that ran before.
  await toApiResult(
    new Response((percent ? percentBody() : randomBody(9)).subarray(0, 300_000), {
      headers: { "content-type": TYPE },
    }),
    SECRETS,
  );
  globalThis.gc();
  const rss = process.memoryUsage().rss;
  console.log("MARK start");
  const used = process.cpuUsage();
  const budget = collectionBudget();
  let peak = rss;
  for (const bytes of bodies) {
    const response = new Response(bytes, {
      headers: { "content-type": "application/octet-stream" },
    });
    const result = await toApiResult(response, SECRETS, budget);
    if (!(result.body instanceof Uint8Array))
      throw new Error("a body was not handed over as bytes");
    peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
  }
  const { user, system } = process.cpuUsage(used);
  globalThis.gc();
  console.log("MARK end");
  console.log(
    `RESULT ${JSON.stringify({ cpu: (user + system) / 1000, growth: (peak - rss) / 1048576, forced: budget.used })}`,
  );
  process.exit(0);
}

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "random-body-alloc-"));
const against = arg("--against", undefined);
const rounds = Number(arg("--rounds", "3"));

/** This tree's or another's toApiResult and collectionBudget, bundled into `dir`. */
const bundle = (tree, name) =>
  bundleTree(
    tree,
    {
      "src/codemode/request/api-response.ts": ["toApiResult"],
      "src/codemode/request/large-body-collection.ts": ["collectionBudget"],
    },
    join(dir, `${name}.mjs`),
  );

const sides = { current: await bundle(root, "current") };
if (against) {
  const old = archiveTree(root, against, join(dir, "against"));
  if (!existsSync(join(old, "src/codemode/request/api-response.ts")))
    throw new Error(`${against} has no src/codemode/request/api-response.ts`);
  sides[against] = await bundle(old, "against");
}

/** One fresh process over the 4 bodies: its counts. */
function once(file) {
  const out = execFileSync(
    process.execPath,
    [
      "--expose-gc",
      "--max-semi-space-size=2",
      "--trace-gc-nvp",
      "--trace-deopt",
      fileURLToPath(import.meta.url),
      "--child",
      file,
      ...(percent ? ["percent"] : []),
      "--bodies",
      String(BODIES),
      "--body-mib",
      String(BODY_BYTES / 1048576),
    ],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  const lines = out.split("\n");
  const [from, to] = [lines.indexOf("MARK start"), lines.indexOf("MARK end")];
  let [allocated, scavenges, full, scavengeMs, fullMs, thrown] = [0, 0, 0, 0, 0, 0];
  // The collection after "MARK end" closes the window: its `allocated=` is the bodies' last.
  for (const line of lines.slice(from + 1, to + 2)) {
    if (line.includes("for deoptimization, reason: weak objects")) thrown++;
    const kind = / gc=(\w+)/.exec(line)?.[1];
    if (!kind) continue;
    allocated += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
    const pause = Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? 0);
    if (kind === "s") [scavenges, scavengeMs] = [scavenges + 1, scavengeMs + pause];
    else if (kind !== "mmc") [full, fullMs] = [full + 1, fullMs + pause];
  }
  const result = JSON.parse(lines.find((line) => line.startsWith("RESULT "))?.slice(7) ?? "{}");
  return { ...result, allocated, scavenges, full, scavengeMs, fullMs, thrown };
}

const names = Object.keys(sides);
const mib = (BODY_BYTES * BODIES) / 1048576;
for (let round = 0; round < rounds; round++)
  for (const name of round % 2 ? names.toReversed() : names) {
    const r = once(sides[name]);
    console.log(
      `${name}: CPU ${(r.cpu / mib).toFixed(0)} ms/MiB, allocated ${(r.allocated / 1e6 / BODIES).toFixed(0)} MB a body, ` +
        `${r.scavenges} scavenges (${r.scavengeMs.toFixed(0)} ms), ${r.full} full (${r.fullMs.toFixed(0)} ms; ${r.forced} forced), ` +
        `${r.thrown} optimized functions thrown away, peak RSS +${r.growth.toFixed(0)} MiB (load ${(await import("node:os")).loadavg()[0].toFixed(1)})`,
    );
  }
rmSync(dir, { recursive: true });
