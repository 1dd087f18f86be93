/**
 * An API that cannot be reached (#29): the program's error names the host and the reason, not
 * workerd's bare `Network connection lost.`, and never the credential, the path or the query.
 * Real fetches to a port nothing listens on, through the product's request callback and a real
 * `execute` run.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { apiRequestHandler } from "../../../../src/app/api-request-handler";
import type { ApiTarget } from "../../../../src/app/config/config";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { credentialSecrets } from "../../../../src/codemode/redaction/redaction";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../../src/index";
import { cloudflare } from "../../codemode/cloudflare";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

const TOKEN = "net-error-secret-token-5f2e";

/** A target on a local port nothing listens on (the example address). */
const target = (baseUrl: string): ApiTarget => ({
  kind: "http",
  baseUrl,
  credential: { header: "Authorization", value: `Bearer ${TOKEN}` },
  forwardCallerToken: false,
  callerHeader: "Authorization",
  callerScheme: "Bearer",
});

async function run(baseUrl: string): Promise<string> {
  const factory = openApiMcpServer({
    spec: cloudflare,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } }),
    request: apiRequestHandler(target(baseUrl), env.DEMO_STORE, cloudflare),
    secrets: credentialSecrets(`Bearer ${TOKEN}`),
  });
  const client = await connect(createMcpHandler(factory));
  const result = await client.callTool({
    name: "execute",
    arguments: {
      code: `async () => {
        try { await codemode.request({ method: "GET", path: "/zones", query: { name: "q-${TOKEN.slice(0, 5)}" } }); return "answered"; }
        catch (e) { return e.name + ": " + e.message; }
      }`,
    },
  });
  await client.close();
  return text(result);
}

describe("a request to an API that cannot be reached", () => {
  it("names the host and port and says nothing was sent", async () => {
    const out = await run("http://127.0.0.1:19298/client/v4");
    expect(out).toMatch(/^NetworkError: connection refused to 127\.0\.0\.1:19298/);
    expect(out).toContain("nothing was sent");
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain("/zones");
    expect(out).not.toContain("Network connection lost");
  });

  it("never shows user info of the base URL", async () => {
    const out = await run(`http://user:${TOKEN}@127.0.0.1:19298/client/v4`);
    expect(out).toMatch(/connection refused to 127\.0\.0\.1:19298/);
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain("user");
  });
});
