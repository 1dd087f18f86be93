/**
 * Answers that arrive after their request's stream was closed on purpose. `closeSSEStream`
 * ends a request's stream while its handler still runs; without an event store (or before the
 * client holds a resumption cursor) SDK v1's transport then throws "No connection established"
 * from `send`, which the server reports through `onerror` as if something had failed. Nothing
 * did: the caller chose to end that stream, so its late messages are dropped silently, as
 * agents' transport drops them. `send` still runs first, so an event store keeps them for a
 * client that resumes.
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from "@modelcontextprotocol/server";

type RequestId = string | number;

/** The SDK transport's `send` (1.32.2 and 2.4.0, pinned). */
interface SendingTransport {
  send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void>;
}

/**
 * Wraps `transport.send` so a failure to deliver a message of a request in `closed` is
 * dropped. An id leaves `closed` with its request's final answer, so a later request reusing
 * it is reported as usual.
 *
 * @param transport - the connected SDK transport
 * @param closed - ids whose streams the caller closed (`closeSSEStream`)
 */
export function dropLateSends(transport: SendingTransport, closed: Set<RequestId>): void {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const final = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const id = final ? message.id : options?.relatedRequestId;
    if (id === undefined || !closed.has(id)) return send(message, options);
    try {
      await send(message, options);
    } catch {
      // The caller closed this request's stream: nobody is left to receive the message.
    } finally {
      if (final) closed.delete(id);
    }
  };
}
