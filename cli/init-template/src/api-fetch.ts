// `/mcp`: your API (src/openapi.json) as two tools. `search` runs the model's code against the
// spec; `execute` runs it with `codemode.request()`, which reaches this file's `request` callback
// and nothing else (the sandbox has no network). The callback adds the credential: API_TOKEN
// lives here, in the host, never in the sandbox, and is redacted from anything the API echoes.
// Every request but a GET, HEAD or OPTIONS waits for a person's approval (`approval: true`): the
// client shows the exact request and nothing is sent unless they accept.
import { createMcpHandler, openApiMcpServer, WorkerLoaderExecutor } from "code-mode-mcp";
import { env } from "cloudflare:workers";
import spec from "./openapi.json";
import operatorSkills from "./skills.json";

// Secrets are undefined when not set (.dev.vars locally, `wrangler secret put` deployed): an
// unset token is simply not sent, an unset state key leaves approvals unanswerable (every write
// is refused, nothing is sent).
const token = env.API_TOKEN ?? "";
const stateKey = env.REQUEST_STATE_KEY ?? "";

/** The MCP endpoint `/mcp` (created once per isolate; each request gets a fresh server). */
export const apiHandler = createMcpHandler(
  openApiMcpServer({
    spec,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER }),
    request: ({ method, path, query, body }) => {
      const url = new URL(`${env.API_BASE_URL.replace(/\/$/, "")}${path}`);
      for (const [name, value] of Object.entries(query ?? {}))
        if (value !== undefined) url.searchParams.set(name, String(value));
      return fetch(url, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    },
    // A secret must be at least 8 characters: an unset token is simply not sent.
    secrets: token ? [token] : [],
    // Ask a person before every request that is not a GET.
    approval: true,
    // The operator's read-only skills: skills/ bundled by `npm run skills` (skills/README.md).
    skills: { readOnly: operatorSkills },
  }),
  // The approval's state travels sealed between the client's rounds (MRTR, protocol 2026-07-28).
  { route: "/mcp", ...(stateKey ? { requestState: { key: stateKey } } : {}) },
);
