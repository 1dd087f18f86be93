/**
 * Method overrides carried as data (method-override.ts): `_method` in the query or body is
 * refused unless the operation declares it. Before, a `POST` carrying `_method=DELETE` was sent.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { apiRequester } from "../../../../src/codemode/api-requester";
import { loadSpec, type OpenApiSpec } from "../../../../src/openapi/openapi-spec";
import { cloudflareSpec } from "../../openapi/fixtures";

let spec: OpenApiSpec;
beforeAll(() => {
  spec = loadSpec(cloudflareSpec());
});

const PATH = "/zones/023e105f4ecef8ad9ca31a8372d0c353/dns_records";
const signal = new AbortController().signal;

function recorder(served: OpenApiSpec) {
  const sent: string[] = [];
  const request = apiRequester({
    spec: served,
    handler: (req) => {
      sent.push(`${req.method} ${req.path}`);
      return { status: 200 };
    },
    validate: false,
    secrets: [],
    mcp: {} as never,
  });
  return { request, sent };
}

describe("a method override in the query or body is refused unless the operation declares it", () => {
  // Laravel and Symfony (with parameter override on) run a POST carrying `_method=DELETE` as a
  // DELETE: the spec check and the approval rule saw a POST of another operation.
  it.each([
    ["query", { query: { _method: "DELETE" } }],
    ["JSON body", { body: { _method: "DELETE", name: "x" } }],
    ["form body", { body: { _method: "PUT" }, contentType: "application/x-www-form-urlencoded" }],
  ])("in the %s", (_where, extra) => {
    const { request, sent } = recorder(spec);
    expect(() => request({ method: "POST", path: PATH, ...extra }, signal)).toThrow(
      /do not send "_method": it makes the server run another method/,
    );
    expect(sent).toEqual([]);
  });

  it("goes through where the operation declares it", () => {
    const legacy = loadSpec({
      openapi: "3.0.3",
      info: { title: "legacy", version: "1" },
      paths: {
        "/items": {
          post: {
            parameters: [{ name: "_method", in: "query", schema: { type: "string" } }],
            requestBody: {
              content: {
                "application/json": {
                  schema: { type: "object", properties: { _method: { type: "string" } } },
                },
              },
            },
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });
    const { request, sent } = recorder(legacy);
    request({ method: "POST", path: "/items", query: { _method: "x" } }, signal);
    request({ method: "POST", path: "/items", body: { _method: "x" } }, signal);
    expect(sent).toEqual(["POST /items", "POST /items"]);
  });
});
