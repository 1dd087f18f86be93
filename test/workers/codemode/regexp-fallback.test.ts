/**
 * Catastrophic regular expressions do not stall the local runtime: workerd runs with V8's
 * linear-time fallback (cli/local-server/v8-flags.mjs), in the sandbox and on the host, where
 * request validation applies a spec's `pattern` to a model-supplied value.
 *
 * Without the fallback each of these backtracks for days and hangs this workerd (no timer can fire
 * during native work), so they only run when the config says the flags are on.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer } from "../../../src/codemode/openapi-mcp-server";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../src/index";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { connect } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";

// 2^45 backtracking steps: never finishes without the fallback.
const EVIL = `"a".repeat(45) + "!"`;

const spec = loadSpec(
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "patterns", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths: {
      "/names/{name}": {
        get: {
          operationId: "getName",
          parameters: [
            {
              name: "name",
              in: "path",
              required: true,
              schema: { type: "string", pattern: "^(a+)+$" },
            },
          ],
          responses: { "200": { description: "ok" } },
        },
      },
    },
  }),
);

async function call(tool: "search" | "execute", code: string, sent: unknown[]) {
  const factory = openApiMcpServer({
    spec,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } }),
    request: async (request) => {
      sent.push(request);
      return new Response("{}");
    },
  });
  const client = await connect(createMcpHandler(factory));
  try {
    return await client.callTool({ name: tool, arguments: { code } });
  } finally {
    await client.close();
  }
}

describe.skipIf(env.REGEXP_FALLBACK !== "on")("catastrophic regular expressions", () => {
  it("a sandbox program's regex answers (false) instead of stalling workerd", async () => {
    const result = await call(
      "search",
      `async () => [/(a+)+$/.test(${EVIL}), /^(\\w+\\s?)*$/.test("x".repeat(40) + "!")]`,
      [],
    );
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual([false, false]);
  });

  // On the host, src/openapi/pattern-safety.ts never applies this pattern (nested quantifiers),
  // so the value is not held against the request: the call answers at once and is sent.
  it("a catastrophic spec pattern on a model-supplied path value does not stall the host", async () => {
    const sent: unknown[] = [];
    const result = await call(
      "execute",
      `async () => { const r = await codemode.request({ method: "GET", path: "/names/" + ${EVIL} }); return r; }`,
      sent,
    );
    expect(result.isError, text(result)).toBeFalsy();
    expect(sent).toHaveLength(1);
  });
});
