/**
 * The answer to a 2025-era `ping`, given without building a server for it. The SDK's stateless
 * lane builds a server from the factory, connects it to a transport, opens an event stream with
 * a keep-alive timer and closes it all again, only to answer `{}`: on the local server's host
 * that was ~1.1 ms of CPU per `ping` above the runtime's own ~0.4 (issue #43), and clients
 * send pings to keep their connection alive. Only a request the SDK would answer with the same
 * `{}` is answered here; anything unusual goes on to the SDK, which answers it as before.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";

/** The 2025-era revisions, whose requests the stateless legacy lane serves. */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(
  SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version < "2026-07-28"),
);

/**
 * The `{}` answer to `body` when it is a plain 2025-era `ping` the SDK's legacy lane would
 * answer so, else undefined (the SDK then serves the request). Such a request: a POST that
 * accepts JSON and event streams, sends JSON, names no 2026 method (`Mcp-Method`) and a 2025
 * revision or none (`MCP-Protocol-Version`), and whose body is one JSON-RPC `ping` request with
 * a string or number id and at most an empty `params` (a `_meta` of any kind goes to the SDK).
 * The answer is JSON, which every client must accept beside an event stream.
 *
 * The answer is built with the handler's CORS headers already in it, from headers made once per
 * CORS list (the Response copies them): setting them one by one on each answer, as `withCors`
 * does for others, was ~2 % of the host's CPU per `ping` on the local server (issue #43).
 * @param request - the HTTP request (its headers are read; its body is not)
 * @param body - the request's body as already parsed, or undefined when it was not read
 * @param cors - the handler's CORS header pairs (`corsHeaderPairs`), put in the answer
 */
export function pingAnswer(
  request: Request,
  body: unknown,
  cors: readonly (readonly [string, string])[] = NO_HEADERS,
): Response | undefined {
  if (!isPlainPing(body)) return undefined;
  if (request.method.toUpperCase() !== "POST") return undefined;
  const headers = request.headers;
  if (headers.has("mcp-method") || headers.has("mcp-session-id")) return undefined;
  const version = headers.get("mcp-protocol-version");
  if (version !== null && !LEGACY_VERSIONS.has(version)) return undefined;
  const accept = headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream"))
    return undefined;
  const type = (headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") return undefined;
  return new Response(`{"result":{},"jsonrpc":"2.0","id":${JSON.stringify(body.id)}}`, {
    headers: answerHeaders(cors),
  });
}

const NO_HEADERS: readonly (readonly [string, string])[] = Object.freeze([]);

/** The answer's headers for each CORS list: a template the Response copies, never handed out. */
const TEMPLATES = new WeakMap<readonly (readonly [string, string])[], Headers>();

/** The answer's headers with `cors` in them, made on first use of that list. */
function answerHeaders(cors: readonly (readonly [string, string])[]): Headers {
  let headers = TEMPLATES.get(cors);
  if (headers === undefined) {
    headers = new Headers({ "content-type": "application/json" });
    for (const [name, value] of cors) headers.set(name, value);
    TEMPLATES.set(cors, headers);
  }
  return headers;
}

/** Whether `body` is one JSON-RPC `ping` request with an id and no parameters to speak of. */
function isPlainPing(body: unknown): body is { id: string | number } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const message = body as Record<string, unknown>;
  if (message.method !== "ping" || message.jsonrpc !== "2.0") return false;
  if (typeof message.id !== "string" && (typeof message.id !== "number" || !isFinite(message.id)))
    return false;
  for (const key of Object.keys(message))
    if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return false;
  const params = message.params;
  if (params === undefined) return true;
  return (
    typeof params === "object" &&
    params !== null &&
    !Array.isArray(params) &&
    Object.keys(params).length === 0
  );
}
