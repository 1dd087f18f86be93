/**
 * Seed example examples/create-mcp-handler-v1-server.ts: one module-scope SDK v1 server passed
 * to createMcpHandler on every request (the earlier docs' stateless example). The contract: it
 * still works for 2025-era clients, with one deprecation warning, and a later request does not
 * crash on the server an earlier one used.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "./examples/create-mcp-handler-v1-server";
import { connectV1, text, viaWorker } from "./support/clients";

afterEach(() => vi.restoreAllMocks());

/** Runs a session of several requests; returns the deprecation warnings printed meanwhile. */
async function session() {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const { client } = await connectV1("http://localhost/mcp", viaWorker(worker));
  expect(text(await client.callTool({ name: "hello", arguments: { name: "Ada" } }))).toBe(
    "Hello, Ada!",
  );
  expect(text(await client.callTool({ name: "hello", arguments: {} }))).toBe("Hello, World!");
  await client.close();
  return warn.mock.calls.filter((args) => /deprecat/i.test(String(args[0])));
}

describe("seed: createMcpHandler over an SDK v1 server (deprecated)", () => {
  // GAP (lead / H1, src/mcp/shared-v1-server.ts): the example creates a handler per request, and
  // ours warns once per handler created (once per request), where the contract says "one
  // deprecation warning" and agents warns once per isolate
  // (packages/agents/src/mcp/handler-warning.ts). Flip to `it` once the warning is per isolate.
  // It runs first: a warning printed once per isolate must be seen by the first session.
  it.fails("warns once, not once per request", async () => {
    expect(await session()).toHaveLength(1);
  });

  it("serves an SDK v1 client across several requests", async () => {
    await session();
  });
});
