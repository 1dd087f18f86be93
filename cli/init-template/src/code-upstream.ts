// `/mcp/code`: the MCP server at UPSTREAM_URL (wrangler.jsonc) as one `code` tool. Its
// description declares every upstream tool in TypeScript; one program calls many tools and
// returns only the answer. UPSTREAM_TOKEN (.dev.vars locally, `wrangler secret put` deployed) is
// sent as a bearer token by this Worker, never seen by the sandbox.
import { env } from "cloudflare:workers";
import { codeMcpServer, createMcpHandler, WorkerLoaderExecutor } from "code-mode-mcp";
import operatorSkills from "./skills.json";

const token = env.UPSTREAM_TOKEN ?? "";

/** The MCP endpoint `/mcp/code`. */
export const codeHandler = createMcpHandler(
  codeMcpServer({
    upstream: {
      url: env.UPSTREAM_URL,
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    },
    executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
    secrets: token ? [token] : [],
    // The operator's read-only skills: skills/ bundled by `npm run skills` (skills/README.md).
    skills: { readOnly: operatorSkills },
  }),
  { route: "/mcp/code" },
);
