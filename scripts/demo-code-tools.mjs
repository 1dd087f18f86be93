// The demo's `/mcp/code` tool list as the Worker builds it (codeMcpServer over the demo upstream,
// src/app/endpoints.ts), for the spec build step to count in o200k tokens: the demo upstream's
// tools are fixed, so its `code` tool's text is known at build time. Imported through
// import-ts.mjs (it bundles the TypeScript sources).
import { measureServerTools } from "../cli/product/tools-list-tokens.mjs";
import { codeToolText } from "../src/app/code-tool-text";
import { demoUpstreamServer } from "../src/app/demo/demo-upstream";
import { codeMcpServer } from "../src/codemode/code-mcp-server";
import { MemorySkillStore } from "../src/codemode/skills/memory-skill-store";

/** Listing tools never runs code nor calls a tool; both would fail loudly. */
const noExecutor = { execute: () => Promise.reject(new Error("not used")) };
const noStore = /** @type {any} */ (
  new Proxy(
    {},
    {
      get: () => {
        throw new Error("the demo store is not used to list tools");
      },
    },
  )
);

/**
 * Counts the demo's `code` tool as `/mcp/code` lists it with no settings.
 * @returns {ReturnType<typeof measureServerTools>}
 */
export function measureDemoCodeTools() {
  return measureServerTools(
    codeMcpServer({
      upstream: { server: () => demoUpstreamServer(noStore) },
      executor: noExecutor,
      name: "code-mode-tools",
      ...codeToolText({ upstream: { kind: "demo" }, limits: {} }),
      // Skills are on by default: they keep room in the description; the status page lists the
      // tools as no principal (src/app/self-client.ts), so no skills are listed.
      skills: { store: new MemorySkillStore(), owner: () => undefined },
    }),
  );
}
