/**
 * Concurrent requests of one session that reuse a JSON-RPC id. The SDK transport routes a
 * response to its stream by request id, so a second in-flight request with the same id steals
 * the first one's route and the first answer is lost (its stream stays open forever). JSON-RPC
 * only asks ids to be unique among a client's pending requests, but clients behind several
 * independent senders (proxies, tabs) collide in practice.
 *
 * A colliding request gets an alias id inside the server; every frame the transport writes
 * carries the original id again. The alias encodes the original id, so a replay from the event
 * store in another isolate restores it too. Limitation: `notifications/cancelled` naming a
 * reused id reaches the request that first used it.
 */

type RequestId = string | number;

/** Marks alias ids; the NUL character keeps it out of any id a client plausibly sends. */
const PREFIX = "\u0000code-mode-mcp:id:";
let counter = 0;

/** The SDK transport fields this reads and wraps (1.32.2 and 2.4.0, pinned). */
export interface AliasingTransport {
  _requestToStreamMapping?: Map<RequestId, string>;
  writeSSEEvent?(
    controller: unknown,
    encoder: unknown,
    message: unknown,
    eventId?: string,
  ): boolean;
}

/**
 * Makes every frame the transport writes carry original ids. Call once after connecting.
 *
 * @param transport - the SDK transport
 */
export function restoreIdsOnWrite(transport: AliasingTransport): void {
  const write = transport.writeSSEEvent?.bind(transport);
  if (write === undefined) return;
  transport.writeSSEEvent = (controller, encoder, message, eventId) =>
    write(controller, encoder, withOriginalId(message), eventId);
}

/**
 * Gives each request in `body` whose id is already in flight (or repeats within the batch) an
 * alias id. Other messages are returned as they are.
 *
 * @param body - the parsed POST body (a message or a batch)
 * @param transport - the SDK transport (its in-flight request ids)
 * @returns the body to hand to the transport, and whether any id was aliased
 */
export function aliasReusedIds(
  body: unknown,
  transport: AliasingTransport,
): { body: unknown; aliased: boolean } {
  const inFlight = transport._requestToStreamMapping;
  const seen = new Set<RequestId>();
  let aliased = false;
  const alias = (message: unknown): unknown => {
    const id = requestIdOf(message);
    if (id === undefined) return message;
    if (inFlight?.has(id) !== true && !seen.has(id)) {
      seen.add(id);
      return message;
    }
    aliased = true;
    counter += 1;
    return {
      ...(message as object),
      id: `${PREFIX}${counter}:${JSON.stringify(id)}`,
    };
  };
  const result = Array.isArray(body) ? body.map(alias) : alias(body);
  return { body: result, aliased };
}

/**
 * A JSON response body with original ids restored (JSON response mode, after aliasing).
 *
 * @param response - the transport's response
 * @returns the response with ids restored
 */
export async function restoreIdsInJson(response: Response): Promise<Response> {
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) return response;
  const body = (await response.json()) as unknown;
  const restored = Array.isArray(body) ? body.map(withOriginalId) : withOriginalId(body);
  return new Response(JSON.stringify(restored), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** The message with an alias id replaced by the original, else the message itself. */
function withOriginalId(message: unknown): unknown {
  if (message === null || typeof message !== "object") return message;
  const { id } = message as { id?: unknown };
  if (typeof id !== "string" || !id.startsWith(PREFIX)) return message;
  const original = JSON.parse(id.slice(id.indexOf(":", PREFIX.length) + 1)) as RequestId;
  return { ...message, id: original };
}

/** The id of a JSON-RPC request (a method and an id), else undefined. */
function requestIdOf(message: unknown): RequestId | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (typeof method !== "string") return undefined;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}
