// createMcpHandler's sealed request state and the factory context.
import type { AuthInfo } from "@modelcontextprotocol/server";
import { describe, expect, it, vi } from "vitest";
import { createMcpHandler, type McpServerFactoryContext } from "../../../src/index";
import { buildServer, legacyRequest, modernRequest, rpcBody } from "./fixtures";

const KEY = "test-only-request-state-key-0123456789abcdef";
const capabilities = { elicitation: { form: {} } };
const params = { name: "book_table", arguments: { guests: 3 } };
const answers = { confirm: { action: "accept", content: { ok: true } } };
const user = (clientId: string): AuthInfo => ({ token: `t-${clientId}`, clientId, scopes: [] });

async function firstRound(handler: ReturnType<typeof createMcpHandler>, authInfo?: AuthInfo) {
  const response = await handler.fetch(
    modernRequest("tools/call", params, { capabilities }),
    authInfo && { authInfo },
  );
  const body = await rpcBody(response);
  expect(body.result.resultType).toBe("input_required");
  return body.result.requestState as string;
}

async function secondRound(
  handler: ReturnType<typeof createMcpHandler>,
  requestState: string,
  authInfo?: AuthInfo,
) {
  const request = modernRequest(
    "tools/call",
    { ...params, inputResponses: answers, requestState },
    { capabilities, id: 2 },
  );
  return rpcBody(await handler.fetch(request, authInfo && { authInfo }));
}

describe("requestState sealing", () => {
  it("binds a state to the client it was minted for", async () => {
    const handler = createMcpHandler(buildServer, { requestState: { key: KEY } });
    const state = await firstRound(handler, user("alice"));
    const replayed = await secondRound(handler, state, user("mallory"));
    expect(replayed.error.code).toBe(-32602);
    const honest = await secondRound(handler, state, user("alice"));
    expect(honest.result.content[0].text).toBe("booked 3 for 75");
  });

  it("rejects an expired state", async () => {
    const handler = createMcpHandler(buildServer, { requestState: { key: KEY, ttlSeconds: 1 } });
    const state = await firstRound(handler);
    // 2.1 s later on the codec's clock (Date.now, read in whole seconds: a state of 1 s is past
    // its expiry by then), without waiting them out on the serial workerd chain.
    const later = Date.now() + 2_100;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => later);
    const late = await secondRound(handler, state).finally(() => clock.mockRestore());
    expect(late.error).toEqual({
      code: -32602,
      message: "Invalid or expired requestState",
      data: { reason: "invalid_request_state" },
    });
  });

  it("rejects a state sealed with another key", async () => {
    const other = createMcpHandler(buildServer, { requestState: { key: `${KEY}-other` } });
    const handler = createMcpHandler(buildServer, { requestState: { key: KEY } });
    const foreign = await firstRound(other);
    expect((await secondRound(handler, foreign)).error.code).toBe(-32602);
  });

  it("refuses a key shorter than 32 bytes", () => {
    expect(() => createMcpHandler(buildServer, { requestState: { key: "short" } })).toThrow(
      RangeError,
    );
  });

  it("hands the codec to the factory and exposes it on the handler", async () => {
    const seen: (McpServerFactoryContext["requestState"] | undefined)[] = [];
    const handler = createMcpHandler(
      (ctx) => {
        seen.push(ctx.requestState);
        return buildServer(ctx);
      },
      { requestState: { key: KEY } },
    );
    await handler.fetch(modernRequest("tools/list"));
    expect(seen[0]).toBe(handler.requestState);
    expect(createMcpHandler(buildServer).requestState).toBeUndefined();
  });
});

describe("factory context", () => {
  it("tells the factory which era it serves and passes the request", async () => {
    const eras: string[] = [];
    const handler = createMcpHandler((ctx) => {
      eras.push(`${ctx.era}:${ctx.requestInfo?.method}`);
      return buildServer();
    });
    await handler.fetch(modernRequest("tools/list"));
    await handler.fetch(legacyRequest({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(eras).toEqual(["modern:POST", "legacy:POST"]);
  });

  it("accepts a zero-argument factory", async () => {
    const handler = createMcpHandler(() => buildServer());
    expect(
      (await rpcBody(await handler.fetch(modernRequest("tools/list")))).result.tools.length,
    ).toBeGreaterThan(0);
  });
});
