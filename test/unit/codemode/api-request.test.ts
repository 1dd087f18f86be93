import { beforeAll, describe, expect, it } from "vitest";
import { apiRequester, RequestRefusedError } from "../../../src/codemode/api-request";
import { loadSpec, type OpenApiSpec } from "../../../src/openapi/open-api-spec";
import { cloudflareSpec } from "../openapi/fixtures";

let spec: OpenApiSpec;
beforeAll(() => {
  spec = loadSpec(cloudflareSpec());
});

const PATH = "/zones/023e105f4ecef8ad9ca31a8372d0c353/dns_records";
const signal = new AbortController().signal;

function requester(handler: Parameters<typeof apiRequester>[0]["handler"]) {
  return apiRequester({ spec, handler, validate: true, secrets: ["s3cret"], mcp: {} as never });
}

describe("apiRequester (the host side of codemode.request())", () => {
  it("answers a plain handler reply synchronously, redacted, with the matched operation", () => {
    let seen: string | undefined;
    const request = requester((_request, context) => {
      seen = context.operation?.operationId;
      return { status: 200, headers: { "X-Token": "s3cret" }, body: { echo: "s3cret" } };
    });
    const answer = request({ method: "GET", path: PATH }, signal);
    expect(answer).not.toBeInstanceOf(Promise);
    expect(answer).toEqual({
      status: 200,
      ok: true,
      headers: { "x-token": "[REDACTED]" },
      body: { echo: "[REDACTED]" },
    });
    expect(seen).toBe("dns-records-for-a-zone-list-dns-records");
  });

  it("awaits an async handler and reads a Response", async () => {
    const request = requester(async () =>
      Response.json({ result: [] }, { status: 404, headers: { "set-cookie": "a=b" } }),
    );
    const answer = request({ method: "GET", path: PATH }, signal);
    expect(answer).toBeInstanceOf(Promise);
    const result = await answer;
    expect(result.status).toBe(404);
    expect(result.ok).toBe(false);
    expect(result.body).toEqual({ result: [] });
    expect(result.headers["set-cookie"]).toBeUndefined();
  });

  it("refuses a request that does not match the spec before the handler runs", () => {
    let called = false;
    const request = requester(() => {
      called = true;
      return { status: 200 };
    });
    expect(() => request({ method: "GET", path: "/no/such/path" }, signal)).toThrow(
      RequestRefusedError,
    );
    expect(() =>
      request({ method: "GET", path: PATH, headers: { Authorization: "x" } }, signal),
    ).toThrow(/authentication is added by the host/);
    expect(called).toBe(false);
  });
});
