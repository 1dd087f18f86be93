/**
 * Seed example examples/codemode-execute.ts: the model's `execute` program, verbatim, against a
 * Cloudflare-shaped API (`{ success, errors, messages, result }`) behind the host request
 * callback. The program reads `response.result`: `codemode.request()` must resolve to the parsed
 * body, as in the seed.
 *
 * The program names `zoneId`, which a model fills in. The test binds it in a scope around the
 * untouched program text: `const run = <program>` (the program ends with `;`), then `run()`.
 */
import { env } from "cloudflare:workers";
import { openApiMcpServer, WorkerLoaderExecutor } from "code-mode-mcp/codemode";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { describe, expect, it } from "vitest";
import { program } from "./examples/codemode-execute";
import { connectV1, connectV2, text, viaWorker } from "./support/clients";
import { CLOUDFLARE_SPEC, cloudflareApi, RULESETS, ZONE_ID } from "./support/cloudflare-api";

const handler = createMcpHandler(
  openApiMcpServer({
    spec: CLOUDFLARE_SPEC,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } }),
    request: cloudflareApi,
  }),
);

const code = `async () => {
  const zoneId = ${JSON.stringify(ZONE_ID)};
  const run = ${program}
  return await run();
}`;
const expected = RULESETS.map(({ id, name, phase }) => ({ id, name, phase }));

describe("seed: the execute program", () => {
  it("returns the zone's rulesets, trimmed, to an SDK v2 client", async () => {
    const client = await connectV2("http://localhost/mcp", viaWorker(handler));
    const result = await client.callTool({ name: "execute", arguments: { code } });
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(expected);
  });

  it("returns the zone's rulesets, trimmed, to an SDK v1 client", async () => {
    const { client } = await connectV1("http://localhost/mcp", viaWorker(handler));
    const result = await client.callTool({ name: "execute", arguments: { code } });
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(expected);
  });
});
