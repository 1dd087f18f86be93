/**
 * The in-Worker mock upstream both OpenAPI servers call: a tiny Cloudflare-like API answering
 * from memory, so benchmark times are the code-mode machinery, not an upstream.
 */

/** A request as either server hands it to its host callback. */
export interface MockRequest {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** The mock's answer. */
export interface MockReply {
  status: number;
  body: unknown;
}

const ZONES = Array.from({ length: 60 }, (_, i) => ({
  id: `zone${i}`,
  name: `site${i}.example`,
  status: i % 3 === 0 ? "pending" : "active",
}));

/**
 * Answers one request. `GET /accounts` throws: the "failing host function" robustness probe.
 * @param request - method, concrete path, query, body
 */
export function mockApi(request: MockRequest): MockReply {
  const method = request.method.toUpperCase();
  if (method === "GET" && request.path === "/accounts") {
    throw new Error("mock upstream failure (robustness probe)");
  }
  if (method === "GET" && request.path === "/zones") {
    return { status: 200, body: { success: true, result: ZONES, result_info: { count: 60 } } };
  }
  const dns = /^\/zones\/([^/]+)\/dns_records$/.exec(request.path);
  if (dns && method === "GET") {
    return {
      status: 200,
      body: {
        success: true,
        result: [{ id: `${dns[1]}-a`, type: "A", name: `www.${dns[1]}`, content: "192.0.2.1" }],
      },
    };
  }
  if (dns && method === "POST") {
    return {
      status: 200,
      body: { success: true, result: { id: "new", ...(request.body as object) } },
    };
  }
  return { status: 200, body: { success: true, echo: { method, path: request.path } } };
}
