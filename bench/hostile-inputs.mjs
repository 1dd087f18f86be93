/**
 * What the host's thread pays for inputs a program or an upstream chose against its scanners
 * and patterns: the speed claims that unit tests used to time (`performance.now()` under a
 * bound), now counted there (test/helpers/regex-runs.ts) and measured here. Bundles the
 * functions of a tree (this one, or `--tree <dir>`: another worktree, to compare branches) and
 * runs each hostile input at n and 4n in this Node: CPU milliseconds (`process.cpuUsage`, user
 * and system, min of `--rounds`, default 3) and their ratio (about 4 linear, 16 quadratic).
 *
 * `pattern budget` rows apply a spec pattern of pattern-safety's kinds straight to a value of
 * the longest length it is still applied to (`maxCheckedLength`), with a character that fails
 * the match at its end: what STEP_BUDGET ("about 10 ms") buys on this machine.
 *
 * Run: `npm exec -- node bench/hostile-inputs.mjs [--tree ../other] [--rounds 5]`
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundleTree } from "./support/tree-bundle.mjs";

const argv = process.argv;
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const tree = resolve(option("--tree") ?? fileURLToPath(new URL("..", import.meta.url)));
const rounds = Number(option("--rounds") ?? 3);

const dir = mkdtempSync(join(tmpdir(), "hostile-inputs-"));
const outfile = await bundleTree(
  tree,
  {
    "src/openapi/pattern-safety.ts": "*",
    "src/codemode/upstream/tool-catalog.ts": ["ToolCatalog"],
    "src/executor/shared-worker/shared-error-position.ts": ["engineErrorLikeV8"],
    "src/codemode/skills/skill-prelude.ts": ["calledSkillNames"],
    "src/openapi/canonical-path.ts": ["canonicalPath"],
    "cli/local-server/front/answer-parser.mjs": ["readHead"],
  },
  join(dir, "hostile.mjs"),
  { platform: "node" },
);
const lib = await import(pathToFileURL(outfile).href);
rmSync(dir, { recursive: true });

/** CPU milliseconds of `work()`, the least of `rounds` calls (each with a fresh input). */
function cpuMs(work) {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const run = work(i);
    const before = process.cpuUsage();
    run();
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1_000);
  }
  return best;
}

/** One row: `make(n, round)` returns the call to measure for input size n. */
function row(name, n, make) {
  const small = cpuMs((i) => make(n, i));
  const large = cpuMs((i) => make(4 * n, i));
  const ratio = small > 0.05 ? (large / small).toFixed(1) : "-";
  console.log(
    `| ${name} | ${n.toLocaleString("en")} | ${small.toFixed(2)} | ${large.toFixed(2)} | ${ratio} |`,
  );
}

console.log(`tree ${tree}, Node ${process.version}, load ${loadavg()[0].toFixed(1)}`);
console.log("| input | n | CPU ms at n | at 4n | ratio |");
console.log("| --- | --- | --- | --- | --- |");

// pattern-safety: the hostile values of test/unit/openapi/pattern-safety.test.ts (not applied).
const hostilePatterns = [
  ["[a-z]+[0-9]", (n) => "a".repeat(n), 100_000],
  ["\\d+\\d+!", (n) => "1".repeat(n), 3_162],
  ["^\\d{1,1000}\\d{1,1000}\\d{1,1000}x$", (n) => `${"1".repeat(n)}!`, 3_000],
];
for (const [source, value, n] of hostilePatterns) {
  const re = lib.compileSpecPattern(source);
  row(`spec pattern \`${source}\``, n, (size) => () => re.test(value(size)));
}
// What the budget buys: each kind at the longest length it is applied to (no 4n: not applied).
for (const [source, fill] of [
  ["[a-z]+[0-9]", "a"],
  ["\\d+\\d+!", "1"],
  ["^\\d+\\d+$", "1"],
  ["^\\d{1,1000}\\d{1,1000}\\d{1,1000}x$", "1"],
]) {
  const length = lib.maxCheckedLength(lib.patternRisk(source));
  const re = new RegExp(source, "u");
  const ms = cpuMs(() => () => re.test(`${fill.repeat(length - 1)}%`));
  console.log(
    `| pattern budget \`${source}\` | ${length.toLocaleString("en")} | ${ms.toFixed(2)} | - | - |`,
  );
}

// Upstream tool schemas (test/unit/codemode/upstream/tool-input-patterns.test.ts).
const catalogOf = (properties) =>
  new lib.ToolCatalog([{ name: "t", inputSchema: { type: "object", properties } }]);
const validated = (properties, input) => {
  const catalog = catalogOf(properties);
  return () => catalog.validate(catalog.entries[0], input);
};
row("tool input `^(a+)+$`", 25, (n) =>
  validated({ s: { type: "string", pattern: "^(a+)+$" } }, { s: `${"a".repeat(n)}!` }),
);
row("tool input uniqueItems", 30_000, (n) =>
  validated(
    { tags: { type: "array", uniqueItems: true } },
    { tags: Array.from({ length: n }, (_, i) => i) },
  ),
);
row('tool input format "url"', 25, (n) =>
  validated({ link: { type: "string", format: "url" } }, { link: `http://${"a".repeat(n)}@\0` }),
);

// codemode.search with a query a program chose (test/unit/codemode/hostile-tool-text.test.ts).
const tools = Array.from({ length: 200 }, (_, i) => ({
  name: `tool_${i}`,
  description: "Reads and writes records of the inventory. ".repeat(12),
  inputSchema: { type: "object" },
}));
const catalog = new lib.ToolCatalog(tools);
row("search, distinct words", 125_000, (n) => {
  const query = Array.from({ length: n }, (_, i) => `zq${i}`).join(" ");
  return () => catalog.search(`inventory ${query}`, 3);
});

// The shared-worker executor's error position (test/unit/executor/shared-error-position.test.ts).
// Only the outcome's error is read (the rest of an ExecutionOutcome is passed through).
const errorAt = (code, message) => ({
  error: { name: "TypeError", message, line: 1, column: code.lastIndexOf("(") + 1 },
});
for (const [name, line, message] of [
  ["callee after a dotted string", (n) => `const s = "${"a.".repeat(n)}"; o.x()`, "not a function"],
  ["callee of a dotted chain", (n) => `${"a.".repeat(n)}b(`, "not a function"],
  ["`new` after dotted pieces", (n) => `${"new a.".repeat(n)}b.(`, "not a constructor"],
]) {
  row(name, 40_000, (n) => {
    const code = line(n);
    const outcome = errorAt(code, message);
    return () => lib.engineErrorLikeV8(outcome, code);
  });
}

// Skill names in a program (test/unit/codemode/skills/skill-prelude.test.ts).
row("skill names after spaces", 200_000, (n) => {
  const text = `// skills${" ".repeat(n)}x\nskills.a()`;
  return () => lib.calledSkillNames(text);
});

// A request path (test/unit/openapi/canonical-path.test.ts: refused by its length).
row("request path `x.` pieces", 100_000, (n) => {
  const path = `/files/${"x.".repeat(n)}`;
  return () => lib.canonicalPath(path);
});

// A runtime's answer head (test/unit/cli/front/answer-parser.test.ts); readHead keeps recent
// heads, so every call reads a head of its own.
let fresh = 0;
row("answer head, spaces before a letter", 15_000, (n) => {
  const text = `HTTP/1.1 200 OK\r\nX-${fresh++}: ${" ".repeat(n)}x\r\nContent-Length: 0`;
  return () => lib.readHead(text);
});
