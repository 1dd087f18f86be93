/**
 * The stateless handler's side of the cancel board (common/cancel-board.ts, issue #40): each
 * POST's cancels are marked on the board, and a POST that carries one request serves it with a
 * signal that also aborts when a cancel of it arrives in another POST, until its answer is sent
 * (common/cancel-board.ts `stopWhenSent`).
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { callerIdentity } from "../common/caller-identity";
import {
  cancelBoard,
  cancelKey,
  cancelledIds,
  requestIdOf,
  watchCancel,
} from "../common/cancel-board";

/**
 * Marks the requests that the body's `notifications/cancelled` cancel, and, when the body is one
 * request, the request to serve it with: one whose signal also aborts when a cancel of it
 * arrives in another POST (cancel-board.ts). The SDK closes the request's transport when that
 * signal aborts, which aborts the handler's `mcpReq.signal` (a run's cancel). The body was read
 * and goes to the SDK parsed, so the request is rebuilt without it.
 * @param read - the request, its body already read (body-once.ts)
 * @param parsedBody - that body, parsed
 * @param authInfo - the caller's auth info (part of a request's key on the board)
 * @returns the request to hand the SDK, and, when it is watched, `stop()` for once it is served
 */
export function watchedRequest(
  read: Request,
  parsedBody: unknown,
  authInfo: AuthInfo | undefined,
): { forward: Request; watch?: { stop(): void } } {
  const caller = callerIdentity(authInfo);
  const address = read.headers.get("cf-connecting-ip") ?? "";
  for (const id of cancelledIds(parsedBody)) cancelBoard.cancel(cancelKey(caller, address, id));
  const id = requestIdOf(parsedBody);
  if (id === undefined || !read.bodyUsed) return { forward: read };
  const watch = watchCancel(cancelBoard, cancelKey(caller, address, id), read.signal);
  const forward = new Request(read.url, {
    method: read.method,
    headers: read.headers,
    signal: watch.signal,
  });
  return { forward, watch };
}
