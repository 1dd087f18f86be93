/**
 * `POST /api/search` (`{ code }` → `{ text, isError }`): the status page's search form. It calls
 * the `search` tool of `/mcp` through the MCP handler itself, with an in-process SDK client, so
 * the form exercises exactly what MCP clients get.
 *
 * Security defaults: sits behind the same protection as `/mcp` (the router checks the API key
 * first); the body is capped at 192 KiB of UTF-8 (bytes, not characters: errors/capped-body.ts);
 * only `search` (read-only, spec only) can be run here.
 */
import { API_ROUTE, type Endpoints } from "./endpoints";
import { HttpError } from "./errors/http-error";
import { cappedBodyText } from "./errors/capped-body";
import { exceedsJsonShape, jsonShape, jsonShapeRefusal } from "../mcp/common/json-shape";
import { isWellFormedJson } from "../mcp/common/json-well-formed";
import { withSelfClient } from "./self-client";

/**
 * The most bytes a body may hold: a memory cap, so counted in bytes as they arrive. A program of
 * 65,536 characters (the search tool's default `maxCodeChars`, which still judges the program)
 * is at most 3 bytes a character in UTF-8; the local front holds no more for this route
 * (cli/local-server/front/route-bodies.mjs `SEARCH_MAX_BODY_BYTES`).
 */
const MAX_BODY_BYTES = 3 * 65_536;

/**
 * Runs a search program from the status page.
 * @param request - `POST` with JSON `{ code }`
 * @param endpoints - the built endpoints
 * @throws HttpError `405`, `413` or `400` for a request that is not a search program
 */
export async function runSearch(request: Request, endpoints: Endpoints): Promise<Response> {
  if (request.method !== "POST")
    throw new HttpError(
      405,
      "method_not_allowed",
      `${request.method} is not allowed on /api/search.`,
      'POST JSON { "code": "async () => …" } here.',
      { allow: "POST" },
    );
  const raw = await cappedBodyText(
    request,
    MAX_BODY_BYTES,
    "Send a shorter search program: return only the part of the spec you need.",
  );
  // Its shape before its parse (src/mcp/common/json-shape.ts): the body is one string. Past a
  // limit and not JSON either, it is answered as not JSON (what to fix first), still unparsed.
  const over = exceedsJsonShape(jsonShape(raw));
  if (over && isWellFormedJson(raw))
    throw new HttpError(
      400,
      "invalid_request",
      jsonShapeRefusal(over),
      'Send JSON { "code": "…" }.',
    );
  let code: unknown;
  try {
    if (!over) code = (JSON.parse(raw) as { code?: unknown }).code;
  } catch {
    code = undefined;
  }
  if (typeof code !== "string" || code.trim() === "")
    throw new HttpError(
      400,
      "invalid_request",
      'The body is not JSON { "code": "…" } with a program in it.',
      'Send JSON { "code": "async () => …" }.',
    );
  const result = await withSelfClient(endpoints.api, API_ROUTE, (client) =>
    client.callTool({ name: "search", arguments: { code } }),
  );
  const blocks = (result.content ?? []) as { type: string; text?: string }[];
  const text = blocks
    .filter((b) => b.type === "text")
    .map((b) => b.text ?? "")
    .join("\n");
  return Response.json({ text, isError: result.isError === true });
}
