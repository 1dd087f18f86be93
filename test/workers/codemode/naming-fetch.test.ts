/**
 * `namingFetch`, the library's fetch for request callbacks (issue #42: the README's example 1
 * sent with plain `fetch`, so a program saw workerd's `internal error; reference = …` where the
 * product's callback gives a NetworkError). The README's callback shape, with the package's
 * export, through a real `execute` run against a port nothing listens on.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  createMcpHandler,
  namingFetch,
  openApiMcpServer,
  WorkerLoaderExecutor,
} from "code-mode-mcp";
import { connect } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";

const SPEC = {
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths: { "/projects": { get: { responses: { "200": { description: "ok" } } } } },
};

/** The README's example 1 callback, its API on a local port nothing listens on. */
async function run(send: typeof fetch): Promise<string> {
  const api = "http://127.0.0.1:19297";
  const handler = createMcpHandler(
    openApiMcpServer({
      spec: SPEC,
      executor: new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } }),
      request: ({ method, path }) => send(`${api}${path}`, { method }),
    }),
  );
  const client = await connect(handler);
  const result = await client.callTool({
    name: "execute",
    arguments: {
      code: `async () => {
        try { await codemode.request({ method: "GET", path: "/projects" }); return "answered"; }
        catch (e) { return e.name + ": " + e.message; }
      }`,
    },
  });
  await client.close();
  return text(result);
}

describe("namingFetch in a request callback", () => {
  it("gives the program a NetworkError naming the host and port", async () => {
    const out = await run(namingFetch({ what: "the API" }));
    expect(out).toMatch(/^NetworkError: connection refused to 127\.0\.0\.1:19297/);
    expect(out).toContain("Check that the API is running and its address is right.");
  });

  it("where plain fetch gives workerd's bare message", async () => {
    const out = await run((input, init) => fetch(input, init));
    expect(out).not.toMatch(/^NetworkError/);
  });
});
