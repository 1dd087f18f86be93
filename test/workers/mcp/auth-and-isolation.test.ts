// createMcpHandler passes auth info through and isolates factories per request.
import type { AuthInfo } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { authInfoFromOAuthProps, createMcpHandler, getMcpAuthContext } from "../../../src/index";
import {
  buildServer,
  executionContext,
  gate,
  hooks,
  legacyRequest,
  modernRequest,
  rpcBody,
} from "./fixtures";

const whoami = () => modernRequest("tools/call", { name: "whoami" });
const text = async (response: Response) =>
  JSON.parse((await rpcBody(response)).result.content[0].text);

afterEach(() => {
  hooks.streamingGate = undefined;
  hooks.holdGate = undefined;
});

describe("auth pass-through", () => {
  const handler = createMcpHandler(buildServer);
  const authInfo: AuthInfo = {
    token: "secret-token",
    clientId: "client-1",
    scopes: ["read"],
    extra: { props: { userId: "u1", plan: "plan-secret-xyz" } },
  };

  it(".fetch(request, { authInfo }) reaches the factory, the handler context and getMcpAuthContext()", async () => {
    const seen = await text(await handler.fetch(whoami(), { authInfo }));
    expect(seen).toEqual({
      clientId: "client-1",
      factoryClientId: "client-1",
      props: { userId: "u1", plan: "plan-secret-xyz" },
    });
  });

  it("also on the legacy lane", async () => {
    const request = legacyRequest({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "whoami", arguments: {} },
    });
    const seen = await text(await handler.fetch(request, { authInfo }));
    expect(seen.clientId).toBe("client-1");
    expect(seen.props).toEqual({ userId: "u1", plan: "plan-secret-xyz" });
  });

  it("maps the OAuth provider's ctx.props on the Worker face", async () => {
    const request = new Request(whoami(), {
      headers: { ...Object.fromEntries(whoami().headers), authorization: "Bearer tok-abc" },
    });
    const props = { userId: "u2", clientId: "oauth-client", scopes: ["mcp"] };
    const seen = await text(await handler(request, {}, executionContext(props)));
    expect(seen).toEqual({ clientId: "oauth-client", factoryClientId: "oauth-client", props });
  });

  it("maps ctx.props when an OAuth provider calls .fetch(request, env, ctx) as an API handler", async () => {
    const props = { userId: "u3", clientId: "api-handler-client" };
    const face = handler.fetch as unknown as (
      r: Request,
      env: unknown,
      ctx: ExecutionContext,
    ) => Promise<Response>;
    const seen = await text(await face(whoami(), { SOME_BINDING: 1 }, executionContext(props)));
    expect(seen.clientId).toBe("api-handler-client");
    expect(seen.props).toEqual(props);
  });

  it("treats empty ctx.props as unauthenticated", async () => {
    const seen = await text(await handler(whoami(), {}, executionContext({})));
    expect(seen).toEqual({ clientId: null, factoryClientId: null, props: null });
    expect(getMcpAuthContext()).toBeUndefined();
  });

  it("authInfoFromOAuthProps keeps props in extra and the bearer token as token", () => {
    const request = new Request("http://localhost/mcp", {
      headers: { authorization: "Bearer t0k" },
    });
    const info = authInfoFromOAuthProps(request, {
      clientId: "c",
      scopes: ["a", 1],
      expiresAt: 99,
    });
    expect(info).toEqual({
      token: "t0k",
      clientId: "c",
      scopes: ["a"],
      expiresAt: 99,
      extra: { props: { clientId: "c", scopes: ["a", 1], expiresAt: 99 } },
    });
    expect(authInfoFromOAuthProps(request, {})).toBeUndefined();
    expect(authInfoFromOAuthProps(request, undefined)).toBeUndefined();
  });

  it("getMcpAuthContext() still answers after the response started streaming", async () => {
    hooks.streamingGate = gate();
    const streaming = createMcpHandler(buildServer, { responseMode: "sse" });
    const response = await streaming.fetch(modernRequest("tools/call", { name: "stream_whoami" }), {
      authInfo,
    });
    // The response object is already here while the tool is still waiting on the gate.
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const body = rpcBody(response);
    await new Promise((resolve) => setTimeout(resolve, 20));
    hooks.streamingGate.open();
    const result = await body;
    expect(JSON.parse(result.result.content[0].text)).toEqual({
      props: { userId: "u1", plan: "plan-secret-xyz" },
    });
  });

  it("never puts the token or props in an error report", async () => {
    const reports: string[] = [];
    const failing = createMcpHandler(
      () => {
        throw new Error("boom");
      },
      { onerror: (error) => reports.push(`${error.message} ${error.stack ?? ""}`) },
    );
    const response = await failing.fetch(whoami(), { authInfo });
    const body = await response.text();
    for (const output of [...reports, body]) {
      expect(output).not.toContain("secret-token");
      expect(output).not.toContain("plan-secret-xyz");
    }
  });
});

describe("factory isolation", () => {
  it("builds a fresh server for every one of many concurrent requests", async () => {
    let built = 0;
    const handler = createMcpHandler(async () => {
      built++;
      await new Promise((resolve) => setTimeout(resolve, 1));
      return buildServer();
    });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        handler.fetch(
          i % 2
            ? modernRequest("tools/call", { name: "instance" })
            : legacyRequest({
                jsonrpc: "2.0",
                id: i,
                method: "tools/call",
                params: { name: "instance", arguments: {} },
              }),
        ),
      ),
    );
    const ids = await Promise.all(
      responses.map(async (r) => (await rpcBody(r)).result.content[0].text),
    );
    expect(new Set(ids).size).toBe(20);
    expect(built).toBe(20);
  });

  it("refuses a factory that returns a server still serving another request", async () => {
    const shared = buildServer();
    const errors: string[] = [];
    const handler = createMcpHandler(() => shared, {
      onerror: (error) => errors.push(error.message),
    });
    hooks.holdGate = gate();
    const first = handler.fetch(modernRequest("tools/call", { name: "hold" }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const second of [
      modernRequest("tools/call", { name: "echo", arguments: { text: "x" } }),
      legacyRequest({ jsonrpc: "2.0", id: 5, method: "ping" }),
    ]) {
      const response = await handler.fetch(second);
      expect(response.status).toBe(500);
    }
    expect(
      errors.filter((message) => message.includes("still serving another request")),
    ).toHaveLength(2);
    hooks.holdGate.open();
    expect((await rpcBody(await first)).result.content[0].text).toMatch(/^held /);
  });
});
