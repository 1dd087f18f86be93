// validateRequest against the Cloudflare spec: what a request must carry before it is sent.
import { beforeAll, describe, expect, it } from "vitest";
import { loadSpec, type OpenApiSpec } from "../../../src/openapi/openapi-spec";
import { validateRequest } from "../../../src/openapi/validate-request";
import { cloudflareSpec } from "./fixtures";

let spec: OpenApiSpec;
beforeAll(() => {
  spec = loadSpec(cloudflareSpec());
});

const ZONE = "023e105f4ecef8ad9ca31a8372d0c353";

const refused = (r: ReturnType<typeof validateRequest>) => (r.ok ? "accepted" : r.message);

describe("validateRequest against the Cloudflare spec", () => {
  it("accepts a well-formed DNS record create and returns the operation and path params", () => {
    const result = validateRequest(spec, {
      method: "POST",
      path: `/zones/${ZONE}/dns_records`,
      body: {
        type: "A",
        name: "www.example.com",
        content: "198.51.100.4",
        ttl: 3600,
        proxied: true,
      },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.operation.operationId).toBe("dns-records-for-a-zone-create-dns-record");
    expect(result.pathParams).toEqual({ zone_id: "023e105f4ecef8ad9ca31a8372d0c353" });
  });

  it("accepts the base path of the server", () => {
    const result = validateRequest(spec, {
      method: "get",
      path: `/client/v4/zones/${ZONE}/rulesets`,
    });
    expect(result.ok && result.operation.operationId).toBe("listZoneRulesets");
  });

  it("refuses an unknown path with suggestions", () => {
    const result = validateRequest(spec, { method: "GET", path: `/zones/${ZONE}/dns_record` });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe("unknown_path");
    expect(result.message).toContain("/zones/{zone_id}/dns_records");
  });

  it("refuses a method the path does not have, listing the allowed ones", () => {
    const result = validateRequest(spec, { method: "PUT", path: `/zones/${ZONE}/dns_records` });
    expect(result.ok ? "" : result.code).toBe("method_not_allowed");
    expect(refused(result)).toContain("allowed: GET, POST");
  });

  it("prefers a literal segment but falls back to a parameter for other methods", () => {
    const exp = validateRequest(spec, { method: "GET", path: `/zones/${ZONE}/dns_records/export` });
    expect(exp.ok && exp.operation.path).toBe("/zones/{zone_id}/dns_records/export");
    const del = validateRequest(spec, {
      method: "DELETE",
      path: `/zones/${ZONE}/dns_records/export`,
      body: {},
    });
    expect(del.ok && del.operation.path).toBe("/zones/{zone_id}/dns_records/{dns_record_id}");
  });

  it("refuses a body that matches no record shape, naming the operation", () => {
    const result = validateRequest(spec, {
      method: "POST",
      path: `/zones/${ZONE}/dns_records`,
      body: { type: "A", name: "www.example.com", content: "198.51.100.4", ttl: "one hour" },
    });
    expect(result.ok ? "" : result.code).toBe("invalid_request");
    const message = refused(result);
    expect(message).toContain("dns-records-for-a-zone-create-dns-record");
    expect(message).toContain("POST /zones/{zone_id}/dns_records");
    expect(message).toMatch(/body: matches none of the \d+ allowed shapes/);
  });

  it("refuses a missing required body and a body where none is taken", () => {
    expect(
      refused(validateRequest(spec, { method: "POST", path: `/zones/${ZONE}/dns_records` })),
    ).toContain("a request body is required");
    expect(
      refused(
        validateRequest(spec, { method: "GET", path: `/zones/${ZONE}/dns_records`, body: {} }),
      ),
    ).toContain("takes no request body");
  });

  it("checks query parameter types and enums (values may be strings)", () => {
    const ok = validateRequest(spec, {
      method: "GET",
      path: `/zones/${ZONE}/dns_records`,
      query: { page: "2", type: "A" },
    });
    expect(ok.ok).toBe(true);
    const bad = validateRequest(spec, {
      method: "GET",
      path: `/zones/${ZONE}/dns_records`,
      query: { type: "NOPE" },
    });
    expect(refused(bad)).toContain(`query parameter "type": must be one of`);
  });

  it("refuses a missing required query parameter", () => {
    const op = spec.operations.find((o) =>
      (o.parameters ?? []).some(
        (p: any) => spec.deref<any>(p).in === "query" && spec.deref<any>(p).required,
      ),
    )!;
    const path = op.path.replace(/\{[^}]+\}/g, ZONE);
    const result = validateRequest(spec, { method: op.method, path, body: undefined });
    expect(refused(result)).toMatch(/missing required query parameter/);
  });

  it("refuses a query string in the path: query parameters go in `query`, where they are checked", () => {
    const path = `/zones/${ZONE}/dns_records`;
    const result = validateRequest(spec, { method: "GET", path: `${path}?type=NOPE` });
    expect(result.ok ? "" : result.code).toBe("invalid_request");
    expect(refused(result)).toContain("put query parameters in `query`");
  });

  it.each([
    "/zones/..\\..\\accounts-delete-all",
    "/zones/%2e%2E/dns_records",
    "/zones/..%2F..",
    "/zones/a#x",
  ])("refuses %s, which the URL parser would send elsewhere", (path) => {
    const result = validateRequest(spec, { method: "DELETE", path });
    expect(result.ok ? "" : result.code).toBe("invalid_request");
  });

  it("checks path parameters of a request with no query or headers", () => {
    const result = validateRequest(spec, {
      method: "GET",
      path: `/zones/${ZONE}${ZONE}/dns_records`,
    });
    expect(refused(result)).toContain(`path parameter "zone_id"`);
  });
});
