/**
 * Seed example examples/legacy-worker.ts: a Worker that builds `createLegacyMcpHandler(
 * createServer())` for every request, without `storage`. A 2025-era SDK v1 client must get
 * through a whole session: initialize, then follow-up requests (each reaching a fresh handler
 * and transport), then the session's DELETE.
 */
import { describe, expect, it } from "vitest";
import worker from "./examples/legacy-worker";
import { connectV1, viaWorker } from "./support/clients";

describe("seed: the per-request legacy Worker", () => {
  it("serves a whole SDK v1 session", async () => {
    const { client, transport } = await connectV1("http://localhost/mcp", viaWorker(worker));
    expect(transport.sessionId).toBeTruthy();
    expect(client.getServerVersion()).toMatchObject({ name: "legacy-server" });
    await client.ping();
    await client.ping();
    await transport.terminateSession();
    await client.close();
  });
});
