/**
 * The product's request callback re-checks the final URL before it sends a credentialed request
 * (issue #13, hole 4): even a callback handed a path that never went through
 * `codemode.request()` sends nothing outside the base URL or the operation's path template.
 * The upstream stand-in parses the URL with the real URL parser and counts what reached it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { apiRequestHandler } from "../../../../src/app/api-request-handler";
import type { ApiTarget } from "../../../../src/app/config/config";
import type { ApiRequest } from "../../../../src/codemode/request/api-request";
import { cloudflare } from "../../codemode/cloudflare";
import { responseBudget } from "../../../../src/codemode/request/response-budget";

const TARGET: ApiTarget = {
  kind: "http",
  baseUrl: "https://api.example.test/client/v4",
  credential: { header: "Authorization", value: "Bearer handler-test-token" },
  forwardCallerToken: false,
  callerHeader: "Authorization",
  callerScheme: "Bearer",
};

function standIn() {
  const reached: string[] = [];
  const send = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    reached.push(
      `${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}`,
    );
    return Response.json({ ok: true });
  };
  const handler = apiRequestHandler(TARGET, env.DEMO_STORE, cloudflare, send);
  const call = async (request: ApiRequest) => {
    const match = cloudflare.matchOperation(request.method, request.path.split("?")[0]!);
    const context = {
      ...(match.kind === "found"
        ? { operation: match.operation, pathParams: match.params }
        : { pathParams: {} }),
      signal: new AbortController().signal,
      mcp: {} as never,
    };
    try {
      const response = (await handler(request, context)) as Response;
      return `sent ${response.status}`;
    } catch (error) {
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
  };
  return { call, reached };
}

describe("apiRequestHandler: the final URL check", () => {
  it("sends a canonical path under the base URL, with the query as given", async () => {
    const { call, reached } = standIn();
    expect(
      await call({ method: "GET", path: "/zones/z1/dns_records", query: { type: "A", page: 2 } }),
    ).toBe("sent 200");
    expect(reached).toEqual(["GET /client/v4/zones/z1/dns_records?type=A&page=2"]);
  });

  it.each([
    ["/zones/..\\..\\accounts-delete-all", "DELETE"],
    ["/zones/%2e%2e/dns_records", "GET"],
    ["/zones/..%2F..", "GET"],
    ["/zones/a?b=1", "GET"],
    ["/zones/a#x", "GET"],
    ["/zones/x/../../../accounts", "GET"],
  ])("refuses %s before any request is made", async (path, method) => {
    const { call, reached } = standIn();
    const answer = await call({ method, path });
    expect(answer).toMatch(/^RequestRefusedError: /);
    expect(answer).toMatch(/Nothing was sent\./);
    expect(reached).toEqual([]);
  });

  it("refuses a path that does not match the operation it was validated against", async () => {
    const { reached } = standIn();
    const handler = apiRequestHandler(TARGET, env.DEMO_STORE, cloudflare, async () => {
      reached.push("sent");
      return new Response("{}");
    });
    const zone = cloudflare.matchOperation("GET", "/zones/z1");
    expect(zone.kind).toBe("found");
    await expect(
      handler(
        { method: "GET", path: "/accounts" },
        {
          operation: zone.kind === "found" ? zone.operation : undefined,
          pathParams: {},
          signal: new AbortController().signal,
          mcp: {} as never,
        },
      ),
    ).rejects.toThrow(/does not match the operation/);
    expect(reached).toEqual([]);
  });
});

// Hostile (issue #40): with FORWARD_CALLER_TOKEN the handler reads the API's answer itself, to
// redact the caller's token that only it knows; it read the body whole, whatever its size. Now
// it reads within the run's limits (`context.responses`), like every other body. Before the fix:
// the endless body ran into the stand-in's guard.
describe("apiRequestHandler: a forwarded token's answer", () => {
  it("is read within the run's limits: an endless body is cancelled with a LimitError", async () => {
    const seen = { pulls: 0, cancelled: false };
    const send = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (++seen.pulls > 1_000) controller.error(new Error("runaway: read on and on"));
            else controller.enqueue(new Uint8Array(16_384).fill(0x61));
          },
          cancel() {
            seen.cancelled = true;
          },
        }),
        { headers: { "content-type": "text/plain" } },
      );
    const handler = apiRequestHandler(
      { ...TARGET, forwardCallerToken: true },
      env.DEMO_STORE,
      cloudflare,
      send,
    );
    const zone = cloudflare.matchOperation("GET", "/zones/z1");
    expect(zone.kind).toBe("found");
    const error = await Promise.resolve(
      handler(
        { method: "GET", path: "/zones/z1" },
        {
          operation: zone.kind === "found" ? zone.operation : undefined,
          pathParams: zone.kind === "found" ? zone.params : {},
          signal: new AbortController().signal,
          mcp: { http: { authInfo: { token: "caller-token-long-enough" } } } as never,
          responses: responseBudget({ maxBytes: 256 * 1_024 }),
        },
      ),
    ).catch((e: unknown) => e);
    expect((error as Error).name).toBe("LimitError");
    expect((error as Error).message).toMatch(/262144 bytes .* one response body/);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulls).toBeLessThanOrEqual(18);
  });
});
