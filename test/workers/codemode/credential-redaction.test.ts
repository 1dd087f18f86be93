import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  openApiMcpServer,
  type OpenApiMcpServerOptions,
} from "../../../src/codemode/openapi-mcp-server";
import { WorkerLoaderExecutor } from "../../../src/executor/worker-loader-executor";
import { createMcpHandler } from "../../../src/index";
import { CANARY, cloudflare } from "./cloudflare";
import { connect, text } from "./helpers";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
const reversed = (s: string) => [...s].toReversed().join("");

async function call(
  tool: "search" | "execute",
  code: string,
  options: Partial<OpenApiMcpServerOptions> = {},
) {
  const factory = openApiMcpServer({
    spec: cloudflare,
    executor,
    request: () => ({ status: 200, body: { ok: true } }),
    secrets: [CANARY],
    ...options,
  });
  const client = await connect(createMcpHandler(factory));
  const result = await client.callTool({ name: tool, arguments: { code } });
  await client.close();
  return text(result);
}

// Programs return secrets reversed: only a secret that never entered the sandbox stays hidden
// (the final redaction of results would catch the plain text, not a transformed copy).
const CAUGHT = `async () => {
  try { await codemode.request({ method: "GET", path: "/zones" }); return "no error"; }
  catch (e) { return reversed(e.name + ": " + e.message); }
}`.replace("reversed(", '((s) => s.split("").reverse().join(""))(');

describe("configured secrets never reach the sandbox or a result", () => {
  it("are replaced in an error the request callback throws", async () => {
    const out = await call("execute", CAUGHT, {
      request: () => {
        throw new TypeError(`fetch https://api.example/zones?api_key=${CANARY} failed`);
      },
    });
    expect(out).toContain(
      reversed("TypeError: fetch https://api.example/zones?api_key=[REDACTED]"),
    );
    expect(out).not.toContain(reversed(CANARY));
  });

  it("are replaced in an error an async request callback rejects with", async () => {
    const out = await call("execute", CAUGHT, {
      request: async () => {
        throw new Error(`401: token ${CANARY} is expired`);
      },
    });
    expect(out).toContain(reversed("Error: 401: token [REDACTED] is expired"));
    expect(out).not.toContain(reversed(CANARY));
  });

  it("are removed from the spec the sandbox searches", async () => {
    const spec = {
      openapi: "3.0.3",
      info: { title: "Keys", version: "1" },
      paths: {
        "/things": {
          get: {
            operationId: "listThings",
            description: `Example: curl -H "Authorization: Bearer ${CANARY}" /things`,
            responses: { "200": { description: "ok" } },
          },
        },
      },
    };
    const out = await call(
      "search",
      `async () => ((s) => s.split("").reverse().join(""))(JSON.stringify(await codemode.spec()))`,
      { spec },
    );
    expect(out).toContain(reversed("Bearer [REDACTED]"));
    expect(out).not.toContain(reversed(CANARY));
  });

  it("are replaced in results as a last line of defence", async () => {
    const [head, tail] = [CANARY.slice(0, 5), CANARY.slice(5)];
    const out = await call(
      "execute",
      `async () => { console.log("${head}" + "${tail}"); return "${head}" + "${tail}"; }`,
    );
    expect(out).toContain("[REDACTED]");
    expect(out).not.toContain(CANARY);
  });
});
