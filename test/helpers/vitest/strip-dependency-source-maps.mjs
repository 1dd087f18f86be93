/**
 * A Vite plugin that loads dependencies' JavaScript without their `sourceMappingURL` comment.
 * Some packages (the MCP SDK v1 among them) ship source maps whose sources are not in the
 * package, and Vite prints "Sourcemap for … points to missing source files" for every such file
 * in every project, burying real output. A stack trace into a dependency then points at its
 * shipped JavaScript, which is what is installed anyway (cloudflare/agents strips them the same
 * way in its tests).
 */
import { readFile } from "node:fs/promises";

const DEPENDENCY_JS = /\/node_modules\/.+\.(?:c|m)?js$/;
const SOURCE_MAP_COMMENT = /^\/\/[#@] sourceMappingURL=.*$/gm;

/**
 * The plugin (see the module comment); add it to every vitest project.
 * @returns {import("vite").Plugin}
 */
export function stripDependencySourceMaps() {
  return {
    name: "code-mode-mcp:strip-dependency-source-maps",
    enforce: "pre",
    async load(id) {
      // Ids with a query (`?raw`, `?url`, the pool's own markers) belong to other loaders.
      if (id.includes("?") || !DEPENDENCY_JS.test(id)) return null;
      const code = await readFile(id, "utf8").catch(() => undefined);
      if (code === undefined || !code.includes("sourceMappingURL=")) return null;
      return { code: code.replace(SOURCE_MAP_COMMENT, ""), map: null };
    },
  };
}
