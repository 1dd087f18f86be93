/**
 * Seed example examples/worker-transport.ts: `new WorkerTransport({ sessionIdGenerator,
 * enableJsonResponse, storage })` served by a module-scope legacy handler. An SDK v1 client gets
 * a whole session, and the transport keeps its state in the given storage (`mcp_state`).
 */
import { describe, expect, it } from "vitest";
import worker, { kv } from "./examples/worker-transport";
import { captureConsole } from "../helpers/console-capture";
import { connectV1, text, viaWorker } from "./support/clients";

describe("seed: WorkerTransport with storage", () => {
  // GAP (lead; src/mcp/sessions/legacy/worker-transport.ts, H2's area): our WorkerTransport is built as
  // `new WorkerTransport(server, options)`; the seed builds it from options alone and lets the
  // handler connect the server, so the seed's transport has no server and its first request
  // fails. Flip to `it` once `new WorkerTransport(options)` is supported.
  it.fails("serves a session and stores its state under mcp_state", async () => {
    // Until then the handler logs the transport failure this test expects.
    captureConsole("error");
    const { client, transport } = await connectV1("http://localhost/mcp", viaWorker(worker));
    expect(text(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("hi");
    expect(kv.get<{ sessionId?: string }>("mcp_state")?.sessionId).toBe(transport.sessionId);
    await client.close();
  });
});
