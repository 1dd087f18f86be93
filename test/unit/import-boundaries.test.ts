// The layering of docs/architecture.md, pinned: which folder (room) of src/ and sandbox/ may import
// which; that nothing shipped (cli/, bin/) imports a build step (scripts/); that no source folder
// outgrows ~20 files; and that no import circle exists anywhere in the source tree.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Every area of the hosting layer, for the layers above it that may use all of it. */
const MCP = [
  "src/mcp/",
  "src/mcp/common/",
  "src/mcp/tasks/",
  "src/mcp/stateless/",
  "src/mcp/sessions/",
];

/** Every room of code mode, for the layers above it that may use all of it. */
const CODEMODE = [
  "src/codemode/",
  "src/codemode/upstream/",
  "src/codemode/request/",
  "src/codemode/approvals/",
  "src/codemode/redaction/",
  "src/codemode/runs/",
  "src/codemode/skills/",
];

/** Every room of the executor, for the layers above it that may use all of it. */
const EXECUTOR = [
  "src/executor/",
  "src/executor/loader/",
  "src/executor/shared-worker/",
  "src/executor/runners/",
  "src/executor/runners/placement/",
];

/**
 * The areas, most specific first: a file belongs to the first area whose prefix it starts with.
 * `may` lists the areas (or single files) it may import besides its own; `packagesBanned` the
 * bare specifiers its files may not import (prefix match). Type-only imports count: a type is a dependency too.
 */
const RULES: {
  area: string;
  may: string[];
  packagesBanned?: string[];
  why: string;
}[] = [
  {
    area: "src/errors.ts",
    may: [],
    why: "the error policy is the leaf every layer may use",
  },
  {
    area: "src/is-record.ts",
    may: [],
    why: "the one plain-object check, a leaf every layer may use",
  },
  {
    area: "src/openapi/",
    may: ["src/errors.ts", "src/is-record.ts"],
    packagesBanned: ["cloudflare:", "@modelcontextprotocol/", "node:", "zod"],
    why: "pure: compact spec, index, lazy $ref; runs in plain Node and inside the sandbox",
  },
  {
    area: "src/declarations/",
    may: ["src/openapi/", "src/errors.ts", "src/is-record.ts"],
    packagesBanned: ["cloudflare:", "@modelcontextprotocol/", "node:", "zod"],
    why: "pure: JSON Schema / OpenAPI operation to TypeScript text",
  },
  {
    area: "sandbox/engine/",
    may: ["sandbox/", "src/errors.ts"],
    packagesBanned: ["@modelcontextprotocol/", "node:", "zod"],
    why: "the QuickJS engine of the shared worker: its runner and guest use the isolate harness's codec, protocol and console, never the other way round",
  },
  {
    area: "sandbox/",
    may: ["src/openapi/", "src/errors.ts", "src/is-record.ts"],
    packagesBanned: ["@modelcontextprotocol/", "node:", "zod"],
    why: "runs inside the isolate: nothing of the host but the pure spec reader and the error names; the harness knows nothing of the engine",
  },
  {
    area: "src/executor/generated/",
    may: [],
    why: "build output: sandbox module text",
  },
  {
    area: "src/executor/runners/placement/",
    may: [],
    packagesBanned: ["@modelcontextprotocol/", "node:", "zod"],
    why: "placement: which runner a run goes to and how long it waits for one (the tiers, each run's wait, the line, a run's lease), over the slots the loader owns; nothing of the runners' room above it",
  },
  {
    area: "src/executor/runners/",
    may: ["src/executor/runners/placement/", "src/errors.ts"],
    packagesBanned: ["@modelcontextprotocol/", "node:", "zod"],
    why: "local sandbox runners: a loader look-alike on the host and the runner's entrypoint; nothing of the executors, so the runner Worker stays tiny",
  },
  {
    area: "src/executor/loader/",
    may: [
      "src/executor/",
      "src/executor/generated/",
      // the program module's name, which the runners' room owns (it imports nothing of ours)
      "src/executor/runners/run-base.ts",
      "sandbox/",
      "src/errors.ts",
      "src/is-record.ts",
    ],
    packagesBanned: ["@modelcontextprotocol/"],
    why: "the Worker Loader executor (a fresh isolate per run): uses what both executors share, never the shared worker",
  },
  {
    area: "src/executor/shared-worker/",
    may: [
      "src/executor/",
      "src/executor/generated/",
      // a run's end key (it imports nothing of ours): the host ends a cancelled run as a runner does
      "src/executor/runners/run-end-key.ts",
      // the engine's code as the supervisor warms runners with it (stable-code-answer.ts): both
      // import nothing of ours
      "src/executor/runners/code-wire.ts",
      "src/executor/runners/code-hash.ts",
      "sandbox/",
      "sandbox/engine/",
      "src/errors.ts",
      "src/is-record.ts",
    ],
    packagesBanned: ["@modelcontextprotocol/"],
    why: "the shared-worker executor (one stable engine worker): uses what both executors share, never the loader executor",
  },
  {
    area: "src/executor/",
    may: [
      "src/executor/runners/",
      "src/executor/generated/",
      "sandbox/",
      "src/errors.ts",
      "src/is-record.ts",
    ],
    packagesBanned: ["@modelcontextprotocol/"],
    why: "host side of the sandbox, what both executors share (preparing code, limits, host bridge, run start and end); knows nothing of MCP or of either executor",
  },
  {
    area: "src/mcp/common/",
    may: ["src/errors.ts", "src/is-record.ts"],
    why: "what both hosting rooms share (guards, CORS, auth context, server kind): a leaf of src/mcp",
  },
  {
    area: "src/mcp/tasks/",
    may: ["src/mcp/common/", "src/errors.ts"],
    why: "the tasks extension, beside the rooms: installed by both handlers (createMcpHandler, createLegacyMcpHandler), used by code mode and McpAgent (SqlTaskStore); imports neither room",
  },
  {
    area: "src/mcp/stateless/",
    may: ["src/mcp/common/", "src/mcp/tasks/", "src/errors.ts", "src/is-record.ts"],
    why: "the stateless room (createMcpHandler): imports nothing of the sessionful room",
  },
  {
    area: "src/mcp/sessions/",
    may: ["src/mcp/common/", "src/mcp/tasks/", "src/errors.ts", "src/is-record.ts"],
    why: "the sessionful room (legacy transport, McpAgent, event store): imports nothing of the stateless room",
  },
  {
    area: "src/mcp/",
    may: [...MCP, "src/errors.ts", "src/is-record.ts"],
    why: "the entries (index.ts, server.ts): hosting layer, knows nothing of code mode, the sandbox or the product",
  },
  {
    area: "src/codemode/index.ts",
    may: [...CODEMODE, ...EXECUTOR, "src/errors.ts"],
    why: "the `code-mode-mcp/codemode` entry: the servers and the executors they run on",
  },
  {
    area: "src/codemode/redaction/spellings/",
    may: [
      "src/codemode/redaction/kept-shapes.ts",
      "src/codemode/redaction/view-builder.ts",
      "src/codemode/redaction/sequence-map.ts",
      "src/codemode/redaction/slices.ts",
      "src/codemode/redaction/byte-text.ts",
      "src/codemode/redaction/windowed-search.ts",
    ],
    why: "redaction's spelled-out readings: views over the view builder, never the search (a view holds no secret)",
  },
  {
    area: "src/codemode/redaction/decoding/",
    may: [
      "src/codemode/redaction/spellings/",
      "src/codemode/redaction/kept-shapes.ts",
      "src/codemode/redaction/view-builder.ts",
      "src/codemode/redaction/sequence-map.ts",
      "src/codemode/redaction/slices.ts",
      "src/codemode/redaction/byte-text.ts",
    ],
    why: "redaction's decoding steps and the order of the views searched: never the search (a view holds no secret)",
  },
  {
    area: "src/codemode/redaction/search/",
    may: [
      "src/codemode/redaction/decoding/",
      "src/codemode/redaction/view-builder.ts",
      "src/codemode/redaction/sequence-map.ts",
      "src/codemode/redaction/slices.ts",
      "src/codemode/redaction/byte-text.ts",
      "src/errors.ts",
    ],
    why: "redaction's search (forms, scanner, rounds, marker): over the decoded views, never the entry points",
  },
  {
    area: "src/codemode/redaction/",
    may: ["src/codemode/redaction/search/", "src/errors.ts"],
    why: "redaction's entry points and shared leaves: a leaf of code mode that every room uses; its rooms stay inside",
  },
  {
    area: "src/codemode/request/",
    may: ["src/codemode/redaction/", "src/openapi/", "src/errors.ts"],
    why: "the OpenAPI request pipeline (checked request, headers, encoding, redacted response): knows nothing of approvals, upstreams or the servers",
  },
  {
    area: "src/codemode/approvals/",
    may: ["src/codemode/request/", "src/executor/", ...MCP, "src/openapi/", "src/errors.ts"],
    why: "approvals of requests (flow, ledger, prompt): bound to the request they approve, never to a server",
  },
  {
    area: "src/codemode/upstream/",
    may: [
      "src/codemode/redaction/",
      "src/executor/",
      "src/declarations/",
      "src/openapi/",
      "src/errors.ts",
    ],
    why: "the upstream MCP client (connections, cache, callers, tool catalog): knows nothing of the request pipeline or the servers",
  },
  {
    area: "src/codemode/skills/",
    may: [
      "src/codemode/upstream/",
      // skills.declarations(): the same TypeScript emitter as upstream tools.
      "src/declarations/",
      "src/executor/",
      "src/errors.ts",
      "src/is-record.ts",
      "sandbox/protocol.ts",
    ],
    why: "saved skills (checks, stores, a run's skills): the upstream room only for its safe copy of a JSON Schema; knows nothing of the servers",
  },
  {
    area: "src/codemode/runs/",
    may: ["src/codemode/redaction/", "src/executor/", "src/errors.ts"],
    why: "run records and traces: what a run did, redacted; knows nothing of the servers",
  },
  {
    area: "src/codemode/",
    may: [
      ...CODEMODE,
      "src/executor/",
      "src/declarations/",
      "src/openapi/",
      ...MCP,
      "src/errors.ts",
      "sandbox/codec.ts",
      "sandbox/protocol.ts",
    ],
    why: "the library's code mode servers, their options and descriptions, over the rooms below them: never the deployable product (src/app) or an executor's inside",
  },
  {
    area: "src/index.ts",
    may: [
      "src/codemode/index.ts",
      ...CODEMODE,
      ...MCP,
      ...EXECUTOR,
      "src/declarations/",
      "src/openapi/",
      "src/errors.ts",
      "src/is-record.ts",
    ],
    why: "the public library surface: never the product",
  },
  {
    area: "src/app/generated/",
    may: [],
    why: "build output: the product's compiled specs and its page scripts (browser/), as data",
  },
  {
    area: "src/app/errors/",
    // The one byte-capped body reader (imports nothing), shared with the MCP lanes.
    may: ["src/mcp/common/capped-text"],
    why: "the one HTTP error of the product's routes, and the byte cap on their bodies that throws it: used by every room of the product, imports nothing",
  },
  {
    area: "src/app/config/",
    may: [
      "src/app/errors/",
      "src/codemode/redaction/",
      // The skill limits' defaults (data only, imports nothing): SKILLS_MAX_* default to them.
      "src/codemode/skills/skill-limits",
      // The response limits' defaults and ceilings: MAX_RESPONSE_BYTES(_PER_RUN) default to them
      // (the file imports only src/errors.ts).
      "src/codemode/request/response-budget",
      "src/executor/",
      "src/openapi/",
      "src/errors.ts",
      "src/is-record.ts",
    ],
    why: "the product's settings (names, readConfig, each setting's parser): read by every room of the product, reads none of them",
  },
  {
    area: "src/app/runs/",
    may: [
      "src/app/config/",
      // The run console's script text (browser/console.ts, built by build:sandbox).
      "src/app/generated/",
      "src/app/errors/",
      ...CODEMODE,
      ...MCP,
      "src/errors.ts",
      "src/is-record.ts",
    ],
    why: "the run history and its console: reads the settings, knows nothing of the routes",
  },
  {
    area: "src/app/demo/",
    may: ["src/app/config/", "src/app/errors/", "src/errors.ts", "src/is-record.ts"],
    why: "the demo API and upstream: self-contained sample data, knows nothing of the routes",
  },
  {
    area: "src/app/oauth/",
    may: [
      "src/app/",
      "src/app/config/",
      "src/app/errors/",
      ...MCP,
      "src/errors.ts",
      "src/is-record.ts",
    ],
    why: "the OAuth provider wrapped around the product's app (it takes the App it protects)",
  },
  {
    area: "src/app/",
    may: [
      // The status page's script text (browser/, built by build:sandbox).
      "src/app/generated/",
      "src/app/config/",
      "src/app/errors/",
      "src/app/runs/",
      "src/app/demo/",
      "src/app/oauth/",
      ...CODEMODE,
      ...MCP,
      ...EXECUTOR,
      "src/openapi/",
      "src/declarations/",
      "src/errors.ts",
      "src/is-record.ts",
    ],
    why: "the deployable product, built on the library",
  },
  {
    area: "src/runner.ts",
    may: ["src/executor/runners/"],
    why: "the local sandbox runner's entry: the runner room only",
  },
  {
    area: "src/worker.ts",
    may: ["src/app/", "src/app/generated/", "src/app/runs/", "src/app/demo/", "src/app/oauth/"],
    why: "the deployable entry: the product, its compiled specs and its Durable Object classes",
  },
  {
    area: "src/worker-configuration.d.ts",
    may: ["src/app/", "src/worker.ts"],
    why: "generated by `wrangler types`: the Worker's environment types",
  },
];

/** One import of a source file: the specifier as written and where it points. */
interface Import {
  file: string;
  specifier: string;
  /** Repository-relative target for relative imports. */
  target?: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
  return [...text.matchAll(IMPORT)].map((m) => {
    const specifier = (m[1] ?? m[2])!;
    if (!specifier.startsWith(".")) return { file, specifier };
    const target = normalize(join(dirname(file), specifier)).replaceAll("\\", "/");
    return { file, specifier, target };
  });
}

function ruleOf(file: string) {
  return RULES.find((r) => (r.area.endsWith("/") ? file.startsWith(r.area) : file === r.area));
}

/** True when `target` (an import path, maybe without extension) is the file `area`. */
function inArea(target: string, area: string): boolean {
  const bare = area.replace(/\.(d\.)?ts$/, "");
  return target === area || target === bare || target === `${bare}.js`;
}

const FILES = [...sourceFiles("src"), ...sourceFiles("sandbox")];

/** Every source folder: what the package is built from and what it ships. */
const SOURCE_ROOTS = ["src", "sandbox", "cli", "bin", "scripts"];

/** Most files one folder may hold before it wants rooms (sub-folders by concept). */
const MAX_FILES_PER_FOLDER = 20;

/** Folders under `dir` (itself included), each with the number of source files directly in it. */
function folderSizes(dir: string): [string, number][] {
  const entries = readdirSync(join(ROOT, dir), { withFileTypes: true });
  const own = entries.filter((e) => e.isFile() && /\.(ts|mts|js|mjs)$/.test(e.name)).length;
  return [
    [dir, own],
    ...entries.filter((e) => e.isDirectory()).flatMap((e) => folderSizes(`${dir}/${e.name}`)),
  ];
}

/** The file an import target names (a target may omit the extension or name a .js for a .ts). */
function resolveTarget(target: string, files: ReadonlySet<string>): string | undefined {
  const candidates = [
    target,
    target.replace(/\.js$/, ".ts"),
    `${target}.ts`,
    `${target}.d.ts`,
    `${target}.mjs`,
    `${target}/index.ts`,
  ];
  return candidates.find((c) => files.has(c));
}

/** Who imports whom among `files` (type-only imports included): file to the files it imports. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => [
      file,
      importsOf(file).flatMap(({ target }) => {
        const to = target === undefined ? undefined : resolveTarget(target, known);
        return to === undefined ? [] : [to];
      }),
    ]),
  );
}

/**
 * The circles of an import graph: each strongly connected group of two or more files, or a file
 * that imports itself, as its sorted members (Tarjan's algorithm).
 */
function circlesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of edges.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || edges.get(file)!.includes(file)) circles.push(group.toSorted());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return circles;
}

describe("import boundaries (design.md's layers)", () => {
  it("every source file belongs to an area with a rule", () => {
    expect(FILES.filter((file) => ruleOf(file) === undefined)).toEqual([]);
  });

  it("reads the imports it checks (the parser is not blind)", () => {
    const imports = importsOf("src/index.ts");
    expect(imports.length).toBeGreaterThan(5);
    expect(imports.some((i) => i.target?.startsWith("src/mcp/"))).toBe(true);
  });

  it.each(RULES.map((r) => [r.area, r] as const))(
    "%s imports only what its layer may",
    (_, rule) => {
      const problems: string[] = [];
      for (const file of FILES.filter((f) => ruleOf(f) === rule)) {
        for (const { specifier, target } of importsOf(file)) {
          if (target !== undefined) {
            const area = ruleOf(/\.[a-z]+$/.test(target) ? target : `${target}.ts`)?.area;
            const allowed =
              area === rule.area ||
              (area !== undefined && rule.may.includes(area)) ||
              rule.may.some((m) => !m.endsWith("/") && inArea(target, m));
            if (!allowed) problems.push(`${file} imports ${target} (${rule.why})`);
          } else if (rule.packagesBanned?.some((p) => specifier.startsWith(p))) {
            problems.push(`${file} imports the package ${specifier} (${rule.why})`);
          }
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it("ships nothing that imports a build step: cli/ and bin/ never import scripts/", () => {
    const shipped = [...sourceFiles("cli"), ...sourceFiles("bin")];
    expect(shipped.length).toBeGreaterThan(10);
    const problems = shipped.flatMap((file) =>
      importsOf(file)
        .filter(({ target }) => target?.startsWith("scripts/"))
        .map(
          ({ target }) =>
            `${file} imports ${target} (scripts/ holds build steps; shipped code lives in cli/)`,
        ),
    );
    expect(problems).toEqual([]);
  });

  it(`keeps every source folder at ${MAX_FILES_PER_FOLDER} files or fewer (more wants rooms)`, () => {
    const sizes = SOURCE_ROOTS.flatMap(folderSizes);
    expect(sizes.length).toBeGreaterThan(20);
    expect(sizes.filter(([, count]) => count > MAX_FILES_PER_FOLDER)).toEqual([]);
  });

  it("finds circles: a pair, a longer loop and a file importing itself (the search is not blind)", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["a", "c"]],
      ["c", ["d"]],
      ["d", ["e"]],
      ["e", ["c"]],
      ["f", ["f", "a"]],
      ["g", ["a"]],
    ]);
    expect(circlesOf(graph)).toEqual([["c", "d", "e"], ["a", "b"], ["f"]]);
  });

  it("has no import circle anywhere in the source tree, type-only imports included", () => {
    const graph = importGraph(SOURCE_ROOTS.flatMap(sourceFiles));
    expect(graph.size).toBeGreaterThan(200);
    // A type-only import is an arrow too (this one imports nothing else of that file).
    expect(graph.get("src/codemode/code-server-options.ts")).toContain(
      "src/codemode/upstream/upstream-connection.ts",
    );
    expect(circlesOf(graph)).toEqual([]);
  });
});
