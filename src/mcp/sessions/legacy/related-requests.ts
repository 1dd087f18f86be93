/**
 * Server → client requests made while a client request is being handled ride on that request's
 * stream. The SDK v2 helpers `ctx.mcpReq.elicitInput()` and `ctx.mcpReq.requestSampling()` send
 * their request without a related request id, so the SDK transport puts it on the standalone
 * `GET` stream: with no such stream open (many clients never open one, and the spec lets them),
 * the question is dropped and the tool call waits for its timeout. The spec says these messages
 * SHOULD relate to the originating client request; this makes them do so.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** The id of the client request whose handler is running (follows its awaits). */
const handling = new AsyncLocalStorage<string | number>();

type RequestId = string | number;

/** The SDK transport surface this wraps (v1 and v2 share it). */
interface RelatableTransport {
  onmessage?: (message: unknown, extra?: unknown) => void;
  send(message: unknown, options?: { relatedRequestId?: RequestId }): Promise<void>;
}

/**
 * Wraps a connected SDK transport: incoming requests are handled inside a context naming their
 * id, and an outgoing request sent from that context without a related id gets it, as long as
 * the originating request's stream is still open (otherwise it goes out unrelated, as before).
 *
 * Call after the server connected (the server installs `onmessage` in `connect`). Not for JSON
 * response mode, where a related request could not be delivered at all.
 * @param transport - the SDK transport the server is connected to
 */
export function relateServerRequests(transport: RelatableTransport): void {
  const onmessage = transport.onmessage;
  if (onmessage !== undefined) {
    // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK transport has only this callback
    transport.onmessage = (message, extra) => {
      const id = requestIdOf(message);
      if (id === undefined) return onmessage.call(transport, message, extra);
      return handling.run(id, () => onmessage.call(transport, message, extra));
    };
  }
  const send = transport.send.bind(transport);
  // The SDK (1.32.2 and 2.4.0, pinned) keeps request → stream correlations here; a related send
  // to a request whose stream is gone would throw instead of falling back.
  const open = (transport as { _requestToStreamMapping?: Map<RequestId, string> })
    ._requestToStreamMapping;
  transport.send = (message, options) => {
    const id = handling.getStore();
    if (
      id === undefined ||
      options?.relatedRequestId !== undefined ||
      requestIdOf(message) === undefined ||
      open?.has(id) !== true
    )
      return send(message, options);
    return send(message, { ...options, relatedRequestId: id });
  };
}

/** The id of a JSON-RPC request (a method and an id), else undefined. */
function requestIdOf(message: unknown): RequestId | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (typeof method !== "string") return undefined;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}
