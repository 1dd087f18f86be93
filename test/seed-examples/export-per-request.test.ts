/**
 * Seed example examples/export-per-request.ts: the handler built inside the Worker's object
 * `fetch` export for each request. Ordinary tools work for SDK v2 and v1 clients.
 */
import { describe, expect, it } from "vitest";
import worker from "./examples/export-per-request";
import { connectV1, connectV2, text, viaWorker } from "./support/clients";

describe("seed: createMcpHandler invoked per request from the object export", () => {
  it("serves SDK v2 and v1 clients", async () => {
    const v2 = await connectV2("http://localhost/mcp", viaWorker(worker));
    expect(text(await v2.callTool({ name: "hello", arguments: { name: "v2" } }))).toBe(
      "Hello, v2!",
    );
    await v2.close();
    const { client: v1 } = await connectV1("http://localhost/mcp", viaWorker(worker));
    expect(text(await v1.callTool({ name: "hello", arguments: { name: "v1" } }))).toBe(
      "Hello, v1!",
    );
    await v1.close();
  });
});
