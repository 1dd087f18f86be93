// `codemode.request()` as the seed documents use it: a 2xx answer resolves to the parsed body,
// another status throws an ApiError built in the sandbox, and `response: "full"` gives
// { status, ok, headers, body } for every status. Real workerd, real Worker Loader, real client.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer } from "code-mode-mcp/codemode";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import type { ApiRequest, ApiRequestHandler } from "../../../../src/codemode/request/api-request";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { CANARY, cloudflare } from "../cloudflare";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({
    loader: env.LOADER,
    limits: { timeoutMs: 20_000 },
  });
  const ZONE = "023e105f4ecef8ad9ca31a8372d0c353";
  const RULESETS = [
    {
      id: "2f2feab2026849078ba485f918791bdc",
      name: "Zone ruleset",
      phase: "http_request_firewall_custom",
      kind: "zone",
      version: "3",
    },
    {
      id: "0b5a7d0c1e8f4a6c9d2b3e4f5a6b7c8d",
      name: "Rate limits",
      phase: "http_ratelimit",
      kind: "zone",
      version: "1",
    },
  ];

  /** A local API answering like Cloudflare's (`{ success, errors, messages, result }`). */
  function cloudflareShaped(): {
    handler: ApiRequestHandler;
    seen: ApiRequest[];
  } {
    const seen: ApiRequest[] = [];
    const handler: ApiRequestHandler = (request) => {
      seen.push(request);
      if (request.path === `/zones/${ZONE}/rulesets`)
        return Response.json(
          { success: true, errors: [], messages: [], result: RULESETS },
          { headers: { link: `</zones/${ZONE}/rulesets?page=2>; rel="next"` } },
        );
      if (request.path.endsWith("/rulesets"))
        return Response.json(
          {
            success: false,
            errors: [
              {
                code: 7003,
                message: "Could not route to /zones/0000000000000000000000000000dead/rulesets",
              },
            ],
            messages: [],
            result: null,
          },
          { status: 404, headers: { "x-echo": `Bearer ${CANARY}` } },
        );
      // Echoes the credential in an error body: redaction must hold in the ApiError too.
      return Response.json(
        {
          success: false,
          errors: [{ code: 10000, message: `bad token ${CANARY}` }],
        },
        { status: 403 },
      );
    };
    return { handler, seen };
  }

  async function execute(code: string) {
    const upstream = cloudflareShaped();
    const factory = openApiMcpServer({
      spec: cloudflare,
      executor,
      request: upstream.handler,
      secrets: [CANARY],
    });
    const client = await connect(createMcpHandler(factory));
    const result = await client.callTool({
      name: "execute",
      arguments: { code },
    });
    await client.close();
    return { result, seen: upstream.seen };
  }

  describe("codemode.request() resolves to the body", () => {
    it("runs the seed's execute program as written", async () => {
      const { result } = await execute(`async () => {
  const zoneId = "${ZONE}";
  const response = await codemode.request({ method: "GET", path: \`/zones/\${zoneId}/rulesets\` });
  return response.result.map(({ id, name, phase }) => ({ id, name, phase }));
}`);
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual(
        RULESETS.map(({ id, name, phase }) => ({ id, name, phase })),
      );
    });

    it("throws an ApiError with status, headers and body for a 404", async () => {
      const { result } = await execute(`async () => {
  try {
    await codemode.request({ method: "GET", path: "/zones/0000000000000000000000000000dead/rulesets" });
    return "no throw";
  } catch (e) {
    return {
      name: e.name, isError: e instanceof Error, status: e.status, body: e.body,
      own: ["status", "headers", "body"].every((k) => Object.hasOwn(e, k)),
      header: e.headers["content-type"], message: e.message,
      plainHeaders: Object.getPrototypeOf(e.headers) === Object.prototype,
      sandboxError: Object.getPrototypeOf(Object.getPrototypeOf(e)) === Error.prototype,
    };
  }
}`);
      expect(result.isError, text(result)).toBeFalsy();
      const caught = JSON.parse(text(result));
      expect(caught).toMatchObject({
        name: "ApiError",
        isError: true,
        status: 404,
        own: true,
        header: "application/json",
        plainHeaders: true,
        sandboxError: true,
        body: { success: false, errors: [{ code: 7003 }] },
      });
      expect(caught.message).toMatch(
        /^GET \/zones\/0{28}dead\/rulesets answered HTTP 404: \{"success":false,"errors":\[\{"code":7003/,
      );
    });

    it("an uncaught ApiError tells the model the method, path, status and body", async () => {
      const { result } = await execute(
        `async () => (await codemode.request({ method: "GET", path: "/zones/0000000000000000000000000000dead/rulesets" })).result`,
      );
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("ApiError");
      expect(text(result)).toContain(
        "GET /zones/0000000000000000000000000000dead/rulesets answered HTTP 404",
      );
      expect(text(result)).toContain("Could not route");
    });

    it('gives { status, ok, headers, body } for every status with response: "full"', async () => {
      const { result, seen } = await execute(`async () => {
  const ok = await codemode.request({ method: "GET", path: "/zones/${ZONE}/rulesets", response: "full" });
  const missing = await codemode.request({ method: "GET", path: "/zones/0000000000000000000000000000dead/rulesets", response: "full" });
  return { ok: [ok.status, ok.ok, ok.headers.link, ok.body.result.length], missing: [missing.status, missing.ok, missing.body.errors[0].code] };
}`);
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual({
        ok: [200, true, `</zones/${ZONE}/rulesets?page=2>; rel="next"`, 2],
        missing: [404, false, 7003],
      });
      // `response` chooses the presentation only: it never reaches the upstream.
      expect(seen.every((r) => !("response" in r))).toBe(true);
    });

    it("refuses an unknown response mode before sending", async () => {
      const { result, seen } = await execute(
        `async () => codemode.request({ method: "GET", path: "/zones/${ZONE}/rulesets", response: "raw" })`,
      );
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('`response` is "body"');
      expect(seen).toHaveLength(0);
    });

    it("keeps secrets out of the ApiError's fields and message inside the sandbox", async () => {
      const { result } = await execute(`async () => {
  const seen = [];
  for (const path of ["/zones/0000000000000000000000000000dead/rulesets", "/accounts"]) {
    try { await codemode.request({ method: "GET", path }); } catch (e) {
      seen.push([e.status, [e.message, JSON.stringify(e.body), JSON.stringify(e.headers)].some((t) => t.includes("${CANARY}")), e.message.includes("[REDACTED]") || JSON.stringify(e.headers).includes("[REDACTED]")]);
    }
  }
  return seen;
}`);
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual([
        [404, false, true],
        [403, false, true],
      ]);
    });
  });
});
