/**
 * Builds the declarations corpus (issue #16) and judges it, all in one TypeScript program:
 * - the JSON Schema Test Suite (draft 2020-12 and draft-07): per schema, its declaration must
 *   compile, accept every valid instance and refuse every invalid one, unless a documented
 *   approximation (corpus-conventions.ts) or a ledger entry (corpus-ledger.ts) explains it; and
 *   the `code` tool's input check (ToolCatalog.validate) must agree with the suite, with
 *   well-formed messages, unless the ledger says why not;
 * - the listed cases (exactness-cases.ts): each declaration means the expected type;
 * - real MCP servers' tools (test/fixtures/mcp-tools/tools.json): each input and output type
 *   means what json-schema-to-typescript derives independently, unless the ledger corrects it.
 */
import { Validator, type Schema } from "@cfworker/json-schema";
import { readFileSync } from "node:fs";
import { ToolCatalog } from "../../../src/codemode/upstream/tool-catalog";
import { toolDeclarations, type ToolLike } from "../../../src/declarations/tool-declarations";
import { declaredShape, expressible } from "./corpus-conventions";
import { jsttDeclarations } from "./corpus-jstt";
import { JSTT_CORRECTIONS, SKIPPED_FILES, TYPE_LEDGER, VALIDATOR_LEDGER } from "./corpus-ledger";
import { suiteCases, type SuiteDraft } from "./corpus-suite";
import {
  equalProbe,
  instanceProbe,
  typecheckCorpus,
  type TypecheckEntry,
} from "./corpus-typecheck";
import { CASES } from "./exactness-cases";

/** The judged corpus: problems (empty when it passes) and counts. */
export interface CorpusReport {
  problems: string[];
  counts: Record<string, number>;
  /** Ledger keys that explained nothing (stale entries fail the test too). */
  unusedLedger: string[];
}

/** One MCP tool of the fixture with the server it comes from. */
interface FixtureTool {
  server: string;
  tool: ToolLike;
}

function fixtureTools(): FixtureTool[] {
  const file = new URL("../../fixtures/mcp-tools/tools.json", import.meta.url);
  const dump = JSON.parse(readFileSync(file, "utf8")) as {
    servers: { package: string; tools: ToolLike[] }[];
  };
  return dump.servers.flatMap((s) => s.tools.map((tool) => ({ server: s.package, tool })));
}

/**
 * The `code` tool's own input check (ToolCatalog.validate, the validator as the product runs
 * it): its verdict, or its problems' text when a message is malformed (empty, or ending with a
 * period the caller's sentence would double). A `null` instance goes to the validator directly:
 * the catalog reads a missing input as `{}`, MCP arguments being objects.
 */
function catalogVerdict(schema: unknown, data: unknown): boolean | Error | string {
  if (data === null) return validates(schema, "2020-12", data);
  try {
    const catalog = new ToolCatalog([{ name: "probe", inputSchema: schema as never }]);
    const problems = catalog.validate(catalog.entries[0]!, data);
    const malformed = problems.filter((p) => !/: \S/.test(p) || p.endsWith("."));
    return malformed.length > 0
      ? `malformed messages ${JSON.stringify(malformed)}`
      : problems.length === 0;
  } catch (error) {
    return error as Error;
  }
}

function validates(schema: unknown, draft: SuiteDraft, data: unknown): boolean | Error {
  try {
    return new Validator(schema as Schema, draft, false).validate(data).valid;
  } catch (error) {
    return error as Error;
  }
}

/** Builds, compiles and judges the whole corpus. */
export async function judgeCorpus(): Promise<CorpusReport> {
  const problems: string[] = [];
  const used = new Set<string>();
  const counts: Record<string, number> = {};
  const count = (key: string, n = 1) => (counts[key] = (counts[key] ?? 0) + n);
  const ledger = (table: Record<string, string>, ...keys: string[]) => {
    const key = keys.find((k) => k in table);
    if (key) used.add(key);
    return key !== undefined;
  };

  // Suite cases: instances as probes.
  const suite = suiteCases().filter((c) => !Object.hasOwn(SKIPPED_FILES, c.id.split(" #")[0]!));
  const entries: TypecheckEntry[] = suite.map((c) => {
    // As an output schema: an input's root is an object by MCP's rule, a suite schema's is not.
    const { text, tools } = toolDeclarations([{ name: "probe", outputSchema: c.schema }]);
    const name = outputName(tools[0]!.types);
    return { declarations: text, probes: c.tests.map((t, j) => instanceProbe(name, t.data, j)) };
  });
  // Listed cases: one equality probe each.
  for (const test of CASES) {
    const { text, tools } = toolDeclarations([{ name: "probe", inputSchema: test.schema }]);
    entries.push({
      declarations: `${text}\n${test.expectedTypes ?? ""}`,
      probes: [equalProbe(tools[0]!.types[0]!, test.expected, 0)],
    });
  }
  // MCP tools: the emitter's types against json-schema-to-typescript's (or a correction).
  const tools = fixtureTools();
  const toolChecks: string[] = [];
  for (const { server, tool } of tools) {
    const declared = toolDeclarations([tool]).tools[0]!;
    const parts = [declared.text];
    const probes: string[] = [];
    const sides: ["input" | "output", unknown][] = [
      ["input", tool.inputSchema ?? { type: "object" }],
    ];
    if (tool.outputSchema !== undefined) sides.push(["output", tool.outputSchema]);
    for (const [side, schema] of sides) {
      const key = `${server} ${tool.name} ${side}`;
      const ours =
        declared.types[side === "input" ? 0 : declared.types.indexOf(outputName(declared.types))]!;
      const correction = JSTT_CORRECTIONS[key];
      let expected: string;
      if (correction) {
        used.add(key);
        expected = correction.expected;
      } else {
        parts.push(await jsttDeclarations(schema, "Expected", `J${probes.length}`));
        expected = `J${probes.length}.Expected`;
      }
      probes.push(equalProbe(ours, expected, probes.length));
      toolChecks.push(key);
    }
    entries.push({ declarations: parts.join("\n"), probes });
  }

  const results = typecheckCorpus(entries);

  // Judge the suite.
  suite.forEach((c, i) => {
    const result = results[i]!;
    count("suite schemas");
    for (const error of result.declarationErrors)
      problems.push(`${c.id} (${c.description}): declaration does not compile: ${error}`);
    c.tests.forEach((t, j) => {
      count("suite instances");
      const key = `${c.id} / ${t.description}`;
      const file = c.id.split(" #")[0]!;
      const verdict = catalogVerdict(c.schema, t.data);
      if (verdict === t.valid) count("validator agrees");
      else if (ledger(VALIDATOR_LEDGER, key, c.id, file)) count("validator ledgered");
      else
        problems.push(`${key}: the validator says ${String(verdict)}, the suite says ${t.valid}`);
      const accepted = result.passed[j]!;
      if (accepted === t.valid) return void count("type exact");
      const explained = t.valid
        ? validates(declaredShape(c.schema), c.draft, t.data) === false
        : validates(expressible(c.schema), c.draft, t.data) === true;
      if (explained) return void count(t.valid ? "type declared shape" : "type inexpressible");
      if (ledger(TYPE_LEDGER, key, c.id, file)) return void count("type ledgered");
      problems.push(
        `${key}: the declaration ${accepted ? "accepts" : "refuses"} ${JSON.stringify(t.data)} (suite: ${t.valid ? "valid" : "invalid"})\n${entries[i]!.declarations}`,
      );
    });
  });
  // Judge the listed cases.
  CASES.forEach((test, k) => {
    const result = results[suite.length + k]!;
    count("listed cases");
    if (result.declarationErrors.length > 0 || !result.passed[0])
      problems.push(
        `listed case "${test.name}": not ${test.expected}\n${result.declarationErrors.join("\n")}\n${entries[suite.length + k]!.declarations}`,
      );
    if (test.emits && !entries[suite.length + k]!.declarations.includes(test.emits))
      problems.push(`listed case "${test.name}": the declaration lacks ${test.emits}`);
  });
  // Judge the tools.
  let check = 0;
  tools.forEach(({ server, tool }, k) => {
    const index = suite.length + CASES.length + k;
    const result = results[index]!;
    count("mcp tools");
    for (const error of result.declarationErrors)
      problems.push(
        `${server} ${tool.name}: declarations do not compile: ${error}\n${entries[index]!.declarations}`,
      );
    for (const passed of result.passed) {
      const key = toolChecks[check++]!;
      count("mcp schemas");
      if (passed) count(key in JSTT_CORRECTIONS ? "mcp equal to corrected" : "mcp equal to jstt");
      else
        problems.push(
          `${key}: the emitter's type differs from ${key in JSTT_CORRECTIONS ? "the correction" : "json-schema-to-typescript's"}\n${entries[index]!.declarations}`,
        );
    }
  });
  const unusedLedger = [
    ...Object.keys(TYPE_LEDGER),
    ...Object.keys(VALIDATOR_LEDGER),
    ...Object.keys(JSTT_CORRECTIONS),
  ].filter((k) => !used.has(k));
  count("skipped suite files", Object.keys(SKIPPED_FILES).length);
  return { problems, counts, unusedLedger };
}

/** The output type's name among a tool's declared types (`…Output`). */
function outputName(types: readonly string[]): string {
  return types.find((t) => /Output\d*$/.test(t)) ?? "unknown";
}
