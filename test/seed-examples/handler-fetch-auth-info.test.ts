/**
 * Seed example examples/handler-fetch-auth-info.ts: `handler.fetch(request, { authInfo,
 * parsedBody })` behind a framework that already read the body and verified the caller. The
 * handler serves from `parsedBody` (the body stream is already used) and hands `authInfo` to the
 * factory and to the tool.
 */
import { describe, expect, it } from "vitest";
import worker from "./examples/handler-fetch-auth-info";
import { connectV1, connectV2, text, viaWorker, type FetchLike } from "./support/clients";

const asAda: FetchLike = (url, init) => {
  const headers = new Headers(init?.headers);
  headers.set("x-user", "ada");
  return viaWorker(worker)(url, { ...init, headers });
};

describe("seed: handler.fetch with authInfo and parsedBody", () => {
  it("serves an SDK v2 client from the parsed body with the framework's authInfo", async () => {
    const client = await connectV2("http://localhost/mcp", asAda);
    const who = JSON.parse(text(await client.callTool({ name: "whoami", arguments: {} })));
    expect(who).toEqual({ factory: "ada", tool: "ada", scopes: ["notes:read"] });
    await client.close();
  });

  it("serves an SDK v1 client the same way", async () => {
    const { client } = await connectV1("http://localhost/mcp", asAda);
    const who = JSON.parse(text(await client.callTool({ name: "whoami", arguments: {} })));
    expect(who.tool).toBe("ada");
    await client.close();
  });
});
