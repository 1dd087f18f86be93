/**
 * What the stateless handler does to each server instance a factory returns before the SDK
 * serves it: refuse instances that are still serving, warn once about SDK v1, make
 * server-to-client requests fail fast on the stateless legacy lane, and install the
 * handler's `requestState` verifier.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type McpServer,
  type Server,
} from "@modelcontextprotocol/server";
import { CodeModeError } from "../../errors";
import { protocolOf, type AnyMcpServer } from "../common/server-kind";

/** The message every refused server-to-client request carries. */
export const STATELESS_PUSH_MESSAGE =
  "Server-to-client requests (elicitation, sampling, roots, ping) are unavailable on the stateless legacy lane: " +
  "the answer would arrive at another server instance. Return inputRequired(...) from the handler " +
  "(2026-07-28 clients answer it; read the answer with acceptedContent(...)), or serve 2025-era sessions with McpAgent.";

/**
 * Throws when `server` is still connected to another request's transport: a factory that
 * hands out one shared instance would mix two users' exchanges.
 *
 * @param server - a factory's product
 * @throws CodeModeError `"server_connected"` naming the fix (return a new server from every
 *   factory call)
 */
export function assertNotServing(server: AnyMcpServer): void {
  if (protocolOf(server).transport !== undefined) {
    throw new CodeModeError(
      "server_connected",
      "createMcpHandler: the factory returned a server that is still serving another request. " +
        "Build a new server in every factory call: createMcpHandler(() => new McpServer(...)), not a shared instance.",
    );
  }
}

let warnedV1 = false;

/**
 * Prints, once per isolate, that serving an SDK v1 server through the stateless handler is
 * deprecated. Later calls do nothing.
 */
export function warnSdkV1Once(): void {
  if (warnedV1) return;
  warnedV1 = true;
  console.warn(
    "createMcpHandler: the factory returned an SDK v1 server (@modelcontextprotocol/sdk). This is deprecated: " +
      "it serves 2025-era clients only. Build servers with @modelcontextprotocol/server (SDK v2) to serve 2026-07-28 clients.",
  );
}

/**
 * Makes every server-to-client request of a stateless legacy instance fail at once with an
 * error that points to `inputRequired`, instead of waiting for an answer that would be
 * POSTed to a different instance (and time out a minute later).
 *
 * Two seams, both public: the instance's push methods (`elicitInput`, `createMessage`,
 * `listRoots`, `ping`) so the capability checks inside them cannot answer first with a
 * less helpful message, and the transport's `send` for any other request the server makes.
 *
 * @param server - a factory's product that will serve one legacy request
 */
export function failFastServerToClientRequests(server: AnyMcpServer): void {
  const protocol = protocolOf(server);
  for (const method of ["elicitInput", "createMessage", "listRoots", "ping"]) {
    if (typeof protocol[method] === "function")
      protocol[method] = () => Promise.reject(pushError());
  }
  const target = server as { connect: (transport: unknown) => Promise<void> };
  const connect = target.connect.bind(server);
  target.connect = (transport) => {
    const wire = transport as { send: (message: unknown, options?: unknown) => Promise<void> };
    const send = wire.send.bind(transport);
    wire.send = (message, options) =>
      isRequest(message) ? Promise.reject(pushError()) : send(message, options);
    return connect(transport);
  };
}

/**
 * Installs `verify` as the server's `requestState` integrity hook unless the application
 * configured its own through `ServerOptions.requestState.verify`.
 *
 * The SDK reads the hook from a field its constructor fills; there is no public setter.
 * Writing it here keeps "one key in the handler options" true for every server the factory
 * builds, so a forgotten option can never leave `requestState` unverified.
 *
 * @param server - an SDK v2 server
 * @param verify - the verifier (normally a `createRequestStateCodec(...).verify`)
 */
export function installRequestStateVerify(
  server: McpServer | Server,
  verify: (state: string, ctx: never) => unknown,
): void {
  const protocol = protocolOf(server);
  if (protocol[SDK_VERIFY_FIELD] === undefined) protocol[SDK_VERIFY_FIELD] = verify;
}

/** The SDK v2 `Server` field holding `ServerOptions.requestState.verify` (2.4.0, pinned). */
const SDK_VERIFY_FIELD = "_requestStateVerify";

function pushError(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidRequest, STATELESS_PUSH_MESSAGE);
}

function isRequest(message: unknown): boolean {
  return (
    typeof message === "object" &&
    message !== null &&
    "method" in message &&
    "id" in message &&
    (message as { id?: unknown }).id !== undefined
  );
}
