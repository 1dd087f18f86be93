// The layering of ../shared/design.md, pinned: which folder of src/ and sandbox/ may import which.
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
    area: "sandbox/",
    may: ["src/openapi/", "src/errors.ts", "src/is-record.ts"],
    packagesBanned: ["@modelcontextprotocol/", "node:", "zod"],
    why: "runs inside the isolate: nothing of the host but the pure spec reader and the error names",
  },
  {
    area: "src/executor/generated/",
    may: [],
    why: "build output: sandbox module text",
  },
  {
    area: "src/executor/runners/",
    may: ["src/errors.ts"],
    packagesBanned: ["@modelcontextprotocol/", "node:", "zod"],
    why: "local sandbox runners: a loader look-alike on the host and the runner's entrypoint; nothing of the executors, so the runner Worker stays tiny",
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
    why: "host side of the sandbox: loads it and speaks its codec/protocol; knows nothing of MCP",
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
    area: "src/codemode/",
    may: [
      "src/executor/",
      "src/declarations/",
      "src/openapi/",
      ...MCP,
      "src/errors.ts",
      "sandbox/codec.ts",
      "sandbox/protocol.ts",
    ],
    why: "the library's code mode servers: never the deployable product (src/app)",
  },
  {
    area: "src/index.ts",
    may: [
      "src/codemode/",
      ...MCP,
      "src/executor/",
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
    why: "build output: the product's compiled specs and its browser script (browser/), as data",
  },
  {
    area: "src/app/",
    may: [
      // The run console's script text (browser/console.ts, built by build:sandbox).
      "src/app/generated/",
      "src/codemode/",
      ...MCP,
      "src/executor/",
      "src/executor/runners/",
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
    may: ["src/app/", "src/app/generated/"],
    why: "the deployable entry: the product and its compiled specs",
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
});
