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
  // It runs first: a warning printed once per isolate must be seen by the first session.
  it("warns once, not once per request", async () => {
    expect(await session()).toHaveLength(1);
  });

  it("serves an SDK v1 client across several requests", async () => {
    await session();
  });
});
