/**
 * The stateless handler's side of the cancel board (common/cancel-board.ts, issue #40): each
 * POST's cancels are marked on the board, and a POST that carries one request serves it with a
 * signal that also aborts when a cancel of it arrives in another POST, until its answer is sent
 * (common/cancel-board.ts `stopWhenSent`). The requests of a JSON-RPC batch (2025-03-26, the
 * one revision with batches) share one POST and one server: each is watched on its own, and a
 * cancel of one is handed to that server as the client's own `notifications/cancelled` would
 * be, so its siblings run on (and it is answered with an error, which ends the batch's stream).
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { PROTOCOL_CODES } from "../../errors";
import { callerIdentity } from "../common/caller-identity";
import {
  CANCEL_BATCH_MAX_WATCHED,
  cancelBoard,
  cancelKey,
  cancelledIds,
  cancelOwner,
  requestIdOf,
  watchCancel,
} from "../common/cancel-board";

/**
 * Marks the requests that the body's `notifications/cancelled` cancel, and, when the body is one
 * request, the request to serve it with: one whose signal also aborts when a cancel of it
 * arrives in another POST (cancel-board.ts). The SDK closes the request's transport when that
 * signal aborts, which aborts the handler's `mcpReq.signal` (a run's cancel). The body was read
 * and goes to the SDK parsed, so the request is rebuilt without it. A batch's requests are
 * watched one by one ({@link RequestWatch}).
 * @param read - the request, its body already read (body-once.ts)
 * @param parsedBody - that body, parsed
 * @param authInfo - the caller's auth info (part of a request's key on the board)
 * @returns the request to hand the SDK, and, when it is watched, its {@link RequestWatch}
 */
export function watchedRequest(
  read: Request,
  parsedBody: unknown,
  authInfo: AuthInfo | undefined,
): { forward: Request; watch?: RequestWatch } {
  const caller = callerIdentity(authInfo);
  const address = read.headers.get("cf-connecting-ip") ?? "";
  // Who gives up an entry when the board is full: a stranger's flood pushes off its own.
  const owner = cancelOwner(caller, address);
  for (const id of cancelledIds(parsedBody)) cancelBoard.cancel(cancelKey(caller, address, id));
  if (Array.isArray(parsedBody)) {
    const watch = watchBatch(parsedBody, (id) => cancelKey(caller, address, id), owner);
    return watch === undefined ? { forward: read } : { forward: read, watch };
  }
  const id = requestIdOf(parsedBody);
  if (id === undefined || !read.bodyUsed) return { forward: read };
  const watch = watchCancel(cancelBoard, cancelKey(caller, address, id), read.signal, owner);
  const forward = new Request(read.url, {
    method: read.method,
    headers: read.headers,
    signal: watch.signal,
  });
  return { forward, watch: { stop: watch.stop, served: () => {} } };
}

/** A watched POST: `served(server)` once its server is known, `stop()` once it is answered. */
export interface RequestWatch {
  stop(): void;
  served(server: unknown): void;
}

/**
 * Watches each request of a batch: a cancel of one is handed to the batch's server (known once
 * the SDK built it: `served`) as a `notifications/cancelled`, from this POST's own timer. No
 * signal of its own: a batch whose client goes away is torn down whole by the SDK.
 */
function watchBatch(
  batch: unknown[],
  keyOf: (id: string | number) => string,
  owner: string,
): RequestWatch | undefined {
  if (batch.length > CANCEL_BATCH_MAX_WATCHED) return undefined;
  const ids = batch.map(requestIdOf).filter((id) => id !== undefined);
  if (ids.length === 0) return undefined;
  let cancel: ((id: string | number) => void) | undefined;
  const early: (string | number)[] = [];
  const stops = ids.map((id) => {
    const watch = watchCancel(cancelBoard, keyOf(id), undefined, owner);
    watch.signal.addEventListener(
      "abort",
      () => (cancel === undefined ? early.push(id) : cancel(id)),
      { once: true },
    );
    return watch.stop;
  });
  return {
    stop: () => {
      for (const stop of stops) stop();
    },
    served: (server) => {
      cancel = batchCanceller(server);
      for (const id of early.splice(0)) cancel(id);
    },
  };
}

/**
 * Cancels one request of a batch on its server (an SDK v2 or v1 `McpServer`, or a low-level
 * `Server`): its transport gets the client's `notifications/cancelled`, then answers the request
 * with an error. No answer is owed to a cancelled request, but the batch's event stream ends
 * only once every request in it is answered, and its siblings' answers must still end it. A
 * request already answered gets no second answer: the transport keeps a batch's answers until
 * the last, and wrote the error after the result on the still-open stream (a client that had
 * reused the id took it for its new request's answer). A
 * lease of a shared SDK v1 instance shows no transport: its batches' requests are not cancelled
 * from another POST.
 */
function batchCanceller(server: unknown): (id: string | number) => void {
  type Transport = {
    onmessage?: (message: unknown) => void;
    send?: (message: unknown, options?: unknown) => Promise<void>;
    /** The SDK's (1.32.2 and 2.4.0, pinned) answers of the open streams' requests, by id. */
    _requestResponseMap?: Map<unknown, unknown>;
  };
  type WithTransport = { transport?: Transport };
  const product = server as (WithTransport & { server?: WithTransport }) | undefined;
  const transport = product?.server?.transport ?? product?.transport;
  return (id) => {
    transport?.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason: "The client cancelled the request." },
    });
    if (transport?._requestResponseMap?.has(id) === true) return;
    const error = {
      code: PROTOCOL_CODES.serverError,
      message: "Request cancelled: a notifications/cancelled of this request reached it.",
    };
    // Already answered (it ended before the cancel came): nothing is left to close.
    transport
      ?.send?.({ jsonrpc: "2.0", id, error }, { relatedRequestId: id })
      .catch(() => undefined);
  };
}
