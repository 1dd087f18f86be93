/**
 * Headers a sandbox program may not set (request-headers.ts): besides credentials, the ones that
 * make the server act on another method, path or host than the one validated and approved.
 * Before: `GET` with `X-HTTP-Method-Override: DELETE` was sent without approval (the approval
 * rule and the spec check both read `GET`), and `X-Original-URL` named a path nobody checked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { nonReadRequests, RequestRefusedError } from "../../../src/codemode/api-request";
import { apiRequester } from "../../../src/codemode/api-requester";
import { loadSpec, type OpenApiSpec } from "../../../src/openapi/openapi-spec";
import { cloudflareSpec } from "../openapi/fixtures";

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
