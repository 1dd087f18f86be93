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

describe("public surface", () => {
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
