// The package's peers, pinned against what each entry imports (docs/architecture.md
// "Dependencies"): a peer may be optional only where no entry a user imports needs it, because a
// bundler (wrangler's esbuild) resolves every import reachable from the entry, also in modules a
// Worker never calls, and fails on a missing package. The imports are read by bundling each entry's
// source with esbuild (packages left external), so a change in what an entry reaches shows up
// here, with the docs to update.
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** The package's entries (package.json `exports`) and the source each one is built from. */
const ENTRIES = {
  "code-mode-mcp": "src/index.ts",
  "code-mode-mcp/codemode": "src/codemode/index.ts",
  "code-mode-mcp/mcp": "src/mcp/index.ts",
  "code-mode-mcp/mcp/server": "src/mcp/server.ts",
} as const;

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/** The packages (not the platform's `cloudflare:` and `node:` modules) an entry reaches. */
async function packagesOf(file: string): Promise<string[]> {
  const seen = new Set<string>();
  await build({
    entryPoints: [ROOT + file],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    logLevel: "silent",
    plugins: [
      {
        name: "collect-packages",
        setup(builder) {
          builder.onResolve({ filter: /^[^./]/ }, ({ path }) => {
            if (!/^(cloudflare|node):/.test(path)) seen.add(packageOf(path));
            return { path, external: true };
          });
        },
      },
    ],
  });
  return [...seen].toSorted();
}

const reached = Object.fromEntries(
  await Promise.all(
    Object.entries(ENTRIES).map(async ([entry, file]) => [entry, await packagesOf(file)] as const),
  ),
);
const optional = (name: string) => pkg.peerDependenciesMeta?.[name]?.optional === true;

describe("the package's peers", () => {
  it("pins the packages each entry reaches", () => {
    expect(reached).toEqual({
      "code-mode-mcp": [
        "@cfworker/json-schema",
        "@modelcontextprotocol/client",
        "@modelcontextprotocol/sdk",
        "@modelcontextprotocol/server",
        "acorn",
        "sucrase",
        "zod",
      ],
      "code-mode-mcp/codemode": [
        "@cfworker/json-schema",
        "@modelcontextprotocol/client",
        "@modelcontextprotocol/sdk",
        "@modelcontextprotocol/server",
        "acorn",
        "sucrase",
        "zod",
      ],
      "code-mode-mcp/mcp": ["@modelcontextprotocol/sdk", "@modelcontextprotocol/server", "zod"],
      "code-mode-mcp/mcp/server": ["@modelcontextprotocol/server", "zod"],
    });
  });

  it("declares every package an entry reaches as a dependency or a peer", () => {
    const declared = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)];
    const undeclared = Object.values(reached)
      .flat()
      .filter((name) => !declared.includes(name));
    expect(undeclared).toEqual([]);
  });

  it("keeps a peer required when the root entry reaches it (a bundle would fail without it)", () => {
    const wrongly = reached["code-mode-mcp"]!.filter((name) => optional(name));
    expect(wrongly).toEqual([]);
  });

  it("keeps wrangler, which no entry imports, a required peer for the command", () => {
    // The library never imports it; the `code-mode-mcp` command runs the local server (through
    // the Miniflare wrangler brings) and deploy with it. Required, because npm installs a missing
    // peer but skips an optional one, `npx` included: `npx code-mode-mcp` stays one install.
    expect(Object.values(reached).flat()).not.toContain("wrangler");
    expect(pkg.peerDependencies.wrangler).toBeDefined();
    expect(optional("wrangler")).toBe(false);
    expect(Object.keys(pkg.dependencies)).not.toContain("miniflare");
  });
});
