// The request URL's parts parsed once per URL (src/mcp/common/request-url.ts): the same parts
// `new URL` gives, for any URL, and one parse for the readers of one request (issue #43).
import { afterEach, describe, expect, it } from "vitest";
import { createMcpHandler } from "../../../src/index";
import { urlParts } from "../../../src/mcp/common/request-url";
import { buildServer, executionContext, legacyRequest } from "./fixtures";

const NativeURL = URL;
// The global the readers construct from (typed here: not every test area declares it).
const scope = globalThis as unknown as { URL: typeof URL };

/** Counts `new URL(x)` calls for `x` while `body` runs (the global constructor swapped). */
async function parsesOf(text: string, body: () => Promise<unknown> | unknown): Promise<number> {
  let count = 0;
  scope.URL = class extends NativeURL {
    constructor(url: string | URL, base?: string | URL) {
      super(url, base);
      if (String(url) === text) count++;
    }
  } as typeof URL;
  try {
    await body();
  } finally {
    scope.URL = NativeURL;
  }
  return count;
}

afterEach(() => {
  scope.URL = NativeURL;
});

describe("urlParts", () => {
  it("gives what new URL gives, whatever came before", () => {
    const urls = [
      "http://localhost:8787/mcp",
      "http://localhost:8787/mcp?x=1#f",
      "https://mcp.example.com/mcp/code",
      "https://user:pa%2Fss@[::1]:9/a%2Fb/../c?q=%2F",
      "http://127.0.0.1/",
      "http://localhost:8787/mcp",
      "https://xn--bcher-kva.example/%E2%82%AC?",
      "https://mcp.example.com:443/health",
    ];
    for (const url of [...urls, ...urls.toReversed()]) {
      const parsed = new URL(url);
      expect(urlParts(url)).toEqual({
        pathname: parsed.pathname,
        search: parsed.search,
        hostname: parsed.hostname,
        host: parsed.host,
      });
    }
  });

  it("hands out frozen parts, so no reader can change what the next one reads", () => {
    const parts = urlParts("http://localhost:8787/mcp");
    expect(Object.isFrozen(parts)).toBe(true);
    expect(() => {
      (parts as { pathname: string }).pathname = "/admin";
    }).toThrow(TypeError);
    expect(urlParts("http://localhost:8787/mcp").pathname).toBe("/mcp");
  });

  it("throws on a URL that does not parse, as new URL does", () => {
    expect(() => urlParts("not a url")).toThrow(TypeError);
  });
});

describe("one request through the MCP handler", () => {
  it("parses its URL once, not once per reader (route match and Host guard)", async () => {
    const handler = createMcpHandler(buildServer);
    // A URL no other test asks for, so the first parse is this request's own.
    const url = `http://localhost:8787/mcp?once=${crypto.randomUUID()}`;
    const request = new Request(
      url,
      legacyRequest({ jsonrpc: "2.0", id: 1, method: "ping" }, { host: "localhost:8787" }),
    );
    let status = 0;
    const parses = await parsesOf(url, async () => {
      status = (await handler(request, {}, executionContext())).status;
    });
    expect(status).toBe(200);
    expect(parses).toBe(1);
  });
});
