/**
 * Headers a sandbox program may not set (request-headers.ts): besides credentials, the ones that
 * make the server act on another method, path or host than the one validated and approved.
 * Before: `GET` with `X-HTTP-Method-Override: DELETE` was sent without approval (the approval
 * rule and the spec check both read `GET`), and `X-Original-URL` named a path nobody checked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { nonReadRequests, RequestRefusedError } from "../../../../src/codemode/request/api-request";
import { apiRequester } from "../../../../src/codemode/api-requester";
import { loadSpec, type OpenApiSpec } from "../../../../src/openapi/openapi-spec";
import { cloudflareSpec } from "../../openapi/fixtures";

let spec: OpenApiSpec;
beforeAll(() => {
  spec = loadSpec(cloudflareSpec());
});

const PATH = "/zones/023e105f4ecef8ad9ca31a8372d0c353/dns_records";
const signal = new AbortController().signal;

/** A requester that approves nothing by itself: it records what was asked and what was sent. */
function guarded() {
  const asked: string[] = [];
  const sent: string[] = [];
  const request = apiRequester({
    spec,
    handler: (req) => {
      sent.push(`${req.method} ${req.path}`);
      return { status: 200 };
    },
    validate: true,
    secrets: [],
    mcp: {} as never,
    approve: async (req) => {
      asked.push(`${req.method} ${req.path}`);
      throw new RequestRefusedError("declined");
    },
    needsApproval: nonReadRequests,
  });
  return { request, asked, sent };
}

describe("headers that change the method, path or host are refused", () => {
  it.each([
    ["X-HTTP-Method-Override", "DELETE"],
    ["x-http-method", "DELETE"],
    ["X-Method-Override", "PUT"],
    ["X-Original-URL", "/accounts"],
    ["X-Rewrite-URL", "/accounts"],
    ["Host", "evil.example"],
    ["X-Forwarded-Host", "evil.example"],
    ["Forwarded", "host=evil.example"],
  ])("%s on a GET is refused before approval and sending", (name, value) => {
    const { request, asked, sent } = guarded();
    expect(() =>
      request({ method: "GET", path: PATH, headers: { [name]: value } }, signal),
    ).toThrow(RequestRefusedError);
    expect(() =>
      request({ method: "GET", path: PATH, headers: { [name]: value } }, signal),
    ).toThrow(new RegExp(`do not set the "${name}" header`));
    expect(asked).toEqual([]);
    expect(sent).toEqual([]);
  });

  it.each([
    ["Accept-Encoding", "deflate"],
    ["Accept-Charset", "utf-32"],
    ["TE", "trailers, deflate"],
    ["Expect", "100-continue"],
    ["Connection", "close"],
    ["Upgrade", "websocket"],
    ["Transfer-Encoding", "chunked"],
    ["Content-Length", "5"],
  ])("%s (coding and framing are the host's) is refused before sending", (name, value) => {
    const { request, sent } = guarded();
    expect(() =>
      request({ method: "GET", path: PATH, headers: { [name]: value } }, signal),
    ).toThrow(new RegExp(`do not set the "${name}" header: the host chooses`));
    expect(sent).toEqual([]);
  });

  it("ordinary headers still go through", () => {
    const { request, sent } = guarded();
    request(
      { method: "GET", path: PATH, headers: { "X-Request-Id": "1", Accept: "text/csv" } },
      signal,
    );
    expect(sent).toEqual([`GET ${PATH}`]);
  });
});

describe("a program cannot ask for part of a response unless the operation declares it", () => {
  // An echoed credential cut into byte ranges arrives in pieces no single response holds, so
  // redaction (which matches whole forms of a secret) misses each, and the program joins them.
  it("Range and If-Range on an operation that does not declare them are refused", () => {
    for (const name of ["Range", "if-range"]) {
      const { request, sent } = guarded();
      expect(() =>
        request({ method: "GET", path: PATH, headers: { [name]: "bytes=0-9" } }, signal),
      ).toThrow(new RegExp(`do not set the "${name}" header: this operation does not declare it`));
      expect(sent).toEqual([]);
    }
  });

  it("an operation that declares Range gets it", () => {
    const files = loadSpec({
      openapi: "3.0.3",
      info: { title: "files", version: "1" },
      paths: {
        "/files/{id}": {
          get: {
            parameters: [
              { name: "id", in: "path", required: true, schema: { type: "string" } },
              { name: "Range", in: "header", schema: { type: "string" } },
            ],
            responses: { "200": { description: "the file" } },
          },
        },
      },
    });
    const sent: string[] = [];
    const request = apiRequester({
      spec: files,
      handler: (req) => {
        sent.push(`${req.method} ${req.path} ${req.headers?.["range"]}`);
        return { status: 206 };
      },
      validate: true,
      secrets: [],
      mcp: {} as never,
    });
    request({ method: "GET", path: "/files/a", headers: { range: "bytes=0-9" } }, signal);
    expect(sent).toEqual(["GET /files/a bytes=0-9"]);
  });
});
