// The public surface of each package entry, pinned: adding, renaming or dropping an export (also
// one that arrives through `export *`) must be a deliberate change to these snapshots (and to the
// docs). Names are read from the TypeScript program, as a user's compiler sees them; the
// fresh-project test (test/package/) checks that the built .d.ts of every entry list the same.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { exportNames } from "../package/export-names.mjs";

/** The package's entries (package.json `exports`) and the source each one is built from. */
const ENTRIES = {
  "code-mode-mcp": "src/index.ts",
  "code-mode-mcp/codemode": "src/codemode/index.ts",
  "code-mode-mcp/mcp": "src/mcp/index.ts",
  "code-mode-mcp/mcp/server": "src/mcp/server.ts",
} as const;

const root = fileURLToPath(new URL("../../", import.meta.url));
const lists = exportNames(Object.values(ENTRIES).map((file) => root + file));
const byEntry = new Map(Object.keys(ENTRIES).map((entry, i) => [entry, lists[i]!]));

/**
 * Names that users of `agents/mcp`, `agents/mcp/server` and `@cloudflare/codemode/mcp` import and
 * that we implement: migrating is a change of package name, so each entry must carry them (read
 * from cloudflare/agents a0e134bbc packages/agents/src/mcp/{server,legacy-agent}.ts and
 * packages/codemode/src/mcp.ts). Names we do not implement are listed in docs/differences.md.
 */
const MIRRORED = {
  "code-mode-mcp/mcp/server": [
    "createMcpHandler",
    "CreateMcpHandlerOptions",
    "CreateStatelessMcpHandlerOptions",
    "StatelessMcpHandler",
    "StatelessMcpServerInput",
    "getMcpAuthContext",
    "McpAuthContext",
  ],
  "code-mode-mcp/mcp": [
    "McpAgent",
    "createMcpHandler",
    "experimental_createMcpHandler",
    "CreateMcpHandlerOptions",
    "CreateStatelessMcpHandlerOptions",
    "StatelessMcpHandler",
    "createLegacyMcpHandler",
    "CreateLegacyMcpHandlerOptions",
    "LegacyMcpHandler",
    "getMcpAuthContext",
    "McpAuthContext",
    "DurableObjectEventStore",
    "WorkerTransport",
    "WorkerTransportOptions",
  ],
  "code-mode-mcp/codemode": [
    "codeMcpServer",
    "CodeMcpServerOptions",
    "openApiMcpServer",
    "OpenApiMcpServerOptions",
  ],
} as const;

describe("public surface", () => {
  for (const [entry, names] of Object.entries(MIRRORED)) {
    it(`${entry} carries the names its agents/codemode counterpart users import`, () => {
      const exported = new Set(byEntry.get(entry)!.map((line) => line.split(":")[0]));
      expect(names.filter((name) => !exported.has(name))).toEqual([]);
    });
  }

  for (const [entry, names] of byEntry) {
    it(`${entry} exports exactly the pinned names`, () => {
      expect(names).toMatchSnapshot();
    });
  }

  it("the root entry exports everything each subpath entry does", () => {
    const rootNames = new Set(byEntry.get("code-mode-mcp"));
    for (const [entry, names] of byEntry) {
      const missing = names.filter((name) => !rootNames.has(name));
      expect(missing, `${entry} exports these, code-mode-mcp does not`).toEqual([]);
    }
  });
});
