// apiRequester, normalizeApiRequest and asResponseInit: the host side of codemode.request().
import { beforeAll, describe, expect, it } from "vitest";
import {
  normalizeApiRequest,
  RequestRefusedError,
} from "../../../../src/codemode/request/api-request";
import { apiRequester } from "../../../../src/codemode/api-requester";
import { asResponseInit } from "../../../../src/codemode/request/api-response";
import { loadSpec, type OpenApiSpec } from "../../../../src/openapi/openapi-spec";
import { cloudflareSpec } from "../../openapi/fixtures";

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

describe("normalizeApiRequest: the snapshot that is validated, approved and sent", () => {
  it("reduces query and body to JSON data and copies raw bytes", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const request = normalizeApiRequest({
      method: "put",
      path: "/a/{id}",
      params: { id: "x y" },
      query: { when: new Date(0), skip: undefined },
      body: { at: new Date(0), gone: undefined, n: 1 },
    });
    expect(request).toEqual({
      method: "PUT",
      path: "/a/x%20y",
      query: { when: "1970-01-01T00:00:00.000Z" },
      body: { at: "1970-01-01T00:00:00.000Z", n: 1 },
    });
    const raw = normalizeApiRequest({ method: "PUT", path: "/b", rawBody: bytes });
    expect(raw.rawBody).toEqual(bytes);
    expect(raw.rawBody).not.toBe(bytes);
  });

  it.each([
    ["query text", { method: "GET", path: "/a", query: "x=1" }, /`query` must be an object/],
    ["a BigInt body", { method: "POST", path: "/a", body: { n: 1n } }, /`body` must be JSON data/],
    [
      "an object rawBody",
      { method: "POST", path: "/a", rawBody: { a: 1 } },
      /`rawBody` must be text or bytes/,
    ],
    [
      "a dot-dot param",
      { method: "GET", path: "/a/{id}", params: { id: "../b" } },
      /"\.\." segment/,
    ],
  ])("refuses %s", (_label, input, reason) => {
    expect(() => normalizeApiRequest(input)).toThrow(reason);
  });

  it("reads only own params: an inherited value never fills a template", () => {
    expect(() =>
      normalizeApiRequest({ method: "GET", path: "/a/{a}", params: Object.create({ a: "x" }) }),
    ).toThrow(/fill the path template/);
  });
});

describe("asResponseInit (what a callback's plain answer means)", () => {
  it("keeps { status, headers?, body? } and an ApiResult as answers", () => {
    expect(asResponseInit({ status: 404, body: { error: "no" } })).toEqual({
      status: 404,
      body: { error: "no" },
    });
    const result = { status: 201, ok: true, headers: { etag: "x" }, body: { id: 1 } };
    expect(asResponseInit(result)).toBe(result);
  });

  it("takes anything else as the parsed body of a 200 answer", () => {
    expect(asResponseInit({ status: "available", name: "rex" })).toEqual({
      status: 200,
      body: { status: "available", name: "rex" },
    });
    expect(asResponseInit([1, 2])).toEqual({ status: 200, body: [1, 2] });
    expect(asResponseInit(undefined)).toEqual({ status: 200 });
  });
});
