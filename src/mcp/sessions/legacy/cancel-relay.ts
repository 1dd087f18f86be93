/**
 * Brings a session's cancels to the server that serves the request (issue #40). A session may
 * be served by a fresh server per request (createLegacyMcpHandler in a plain Worker, the
 * session restored from storage or its id), so a `notifications/cancelled`, or the `DELETE`
 * that ends the session, reaches a server that knows no such request: the SDK dropped it and
 * the cancelled run went on until its timeout. Here the POST that carries a request enters it on
 * the cancel board (common/cancel-board.ts) while its answer is sent; a cancel of it, or the
 * session's end, marks it; the request's own POST then hands its own server a
 * `notifications/cancelled` for it, from its own timer (never from the other POST's context),
 * with the id its server knows it by (request-id-aliases.ts: a reused id reaches the right one).
 *
 * Where one server serves the whole session (a Durable Object, a module-scope handler) the SDK
 * already delivers the cancel itself; the relay's second cancel then finds no such request
 * and does nothing.
 *
 * Security defaults: requests are known by their session as well as their id, and a session's
 * part of the key is a SHA-256 of its id (ids may carry a whole `initialize` record, longer than
 * the board keeps; session-id-record.ts), so nobody without the session id can cancel its runs.
 * A dropped POST stream is not a cancel: the client may resume it with `Last-Event-ID`, and the
 * 2025 transports ask that "disconnection SHOULD NOT be interpreted as the client cancelling its
 * request".
 */
import {
  CANCEL_BATCH_MAX_WATCHED,
  CancelBoard,
  cancelledIds,
  stopWhenSent,
  watchCancel,
} from "../../common/cancel-board";

/**
 * The sessionful lanes' board: their own, so requests entered on the stateless lane never push
 * a session's requests off it (each board keeps its 4,096 most recent).
 */
export const sessionCancelBoard = new CancelBoard();

/** The reason a relayed cancel gives the server (a cancel, or the session's end). */
const REASON = "The client cancelled the request, or ended its session.";

/** One request of a POST: the id its client sent, and the one its server knows it by. */
interface SentRequest {
  id: string | number;
  sentId: string | number;
}

/**
 * A session's part of its requests' keys on the board.
 * @param sessionId - the session's id
 * @returns a key prefix that names the session and no other
 */
export async function sessionKeyPrefix(sessionId: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(sessionId));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `["${hex}",`;
}

/** A request's key: its session's prefix, then its JSON-RPC id as JSON (1 and "1" differ). */
function requestKey(prefix: string, id: string | number): string {
  return `${prefix}${JSON.stringify(id)}]`;
}

/**
 * Marks the requests that a POST body's `notifications/cancelled` cancel (a batch may carry
 * several).
 * @param prefix - the session's {@link sessionKeyPrefix}
 * @param parsedBody - the body as the client sent it
 */
export function markCancels(prefix: string, parsedBody: unknown): void {
  for (const id of cancelledIds(parsedBody))
    sessionCancelBoard.cancel(requestKey(prefix, id as string | number));
}

/**
 * Marks every request of a session in flight: the session ended (`DELETE`), so its runs end
 * wherever they are served.
 * @param prefix - the session's {@link sessionKeyPrefix}
 */
export function markSessionEnded(prefix: string): void {
  sessionCancelBoard.cancelAll(prefix);
}

/**
 * Watches the board for a cancel of each request in a POST body (a batch's too) while its
 * answer is sent, and hands `deliver` a `notifications/cancelled` for the id the server knows it
 * by when one comes.
 * @param prefix - the session's {@link sessionKeyPrefix}
 * @param original - the body as the client sent it
 * @param sent - the body as the server got it (reused ids aliased)
 * @param deliver - hands a message to this POST's server
 * @param owner - the POST's sender (common/cancel-board.ts `cancelOwner`: caller and address,
 *   not the session, which a stranger mints for free): who gives up an entry when the board is
 *   full
 * @returns `answered(response)`: the response, the watch stopped once it is sent
 */
export function relayCancels(
  prefix: string,
  original: unknown,
  sent: unknown,
  deliver: (message: unknown) => void,
  owner = "",
): { answered(response: Response): Response; stop(): void } {
  const stops = requestsOf(original, sent).map(({ id, sentId }) => {
    // No signal of its own: a dropped stream is not a cancel (see the file's TSDoc).
    const watch = watchCancel(sessionCancelBoard, requestKey(prefix, id), undefined, owner);
    watch.signal.addEventListener(
      "abort",
      () =>
        deliver({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: sentId, reason: REASON },
        }),
      { once: true },
    );
    return watch.stop;
  });
  const stop = () => {
    for (const each of stops) each();
  };
  return { answered: (response) => stopWhenSent(response, stop), stop };
}

/**
 * The requests of a body (one message or a batch), with the ids their server got; none for a
 * batch larger than {@link CANCEL_BATCH_MAX_WATCHED}.
 */
function requestsOf(original: unknown, sent: unknown): SentRequest[] {
  const originals = Array.isArray(original) ? original : [original];
  if (originals.length > CANCEL_BATCH_MAX_WATCHED) return [];
  const sents = Array.isArray(sent) ? sent : [sent];
  const requests: SentRequest[] = [];
  originals.forEach((message, index) => {
    const id = idOf(message);
    const sentId = idOf(sents[index]);
    if (id !== undefined && sentId !== undefined) requests.push({ id, sentId });
  });
  return requests;
}

/** The id of a JSON-RPC request (a method and an id), else undefined. */
function idOf(message: unknown): string | number | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { id, method } = message as { id?: unknown; method?: unknown };
  if (typeof method !== "string") return undefined;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}
