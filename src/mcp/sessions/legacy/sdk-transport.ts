/**
 * The MCP SDK's sessionful web-standard transport, as the Worker transport wraps it: the SDK
 * v2 class for v2 servers, SDK v1's for v1 servers (loaded only then), and the error chain.
 */
import {
  WebStandardStreamableHTTPServerTransport as V2Transport,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import { isSdkV2Server, protocolOf, type AnyMcpServer } from "../../common/server-kind";
import { useWorkerSafeValidator } from "./worker-safe-validator";

/** The SDK transport surface used here (v1 and v2 share it). */
export interface SdkTransport {
  sessionId?: string;
  onerror?: (error: Error) => void;
  handleRequest(
    request: Request,
    options?: { parsedBody?: unknown; authInfo?: AuthInfo },
  ): Promise<Response>;
  close(): Promise<void>;
  closeSSEStream?(requestId: string | number): void;
  closeStandaloneSSEStream?(): void;
}

/**
 * The SDK transport class matching `server`'s SDK (a v1 server also gets the Worker-safe
 * JSON Schema validator).
 *
 * @param server - an SDK v1 or v2 server
 * @returns the transport class to instantiate
 */
export async function sdkTransportFor(server: AnyMcpServer): Promise<typeof V2Transport> {
  if (isSdkV2Server(server)) return V2Transport;
  useWorkerSafeValidator(server);
  // Loaded only when a v1 server is served: keeps SDK v1 out of other bundles' start-up.
  const module = await import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js");
  return module.WebStandardStreamableHTTPServerTransport as unknown as typeof V2Transport;
}

/**
 * Adds the caller's `onerror` after the server's own handler. Call after connecting: the
 * server installs its chain on the transport in `connect`.
 *
 * @param transport - the connected SDK transport
 * @param onerror - the caller's reporter (its failures never change a response)
 */
export function chainOnError(
  transport: SdkTransport,
  onerror: ((error: Error) => void) | undefined,
): void {
  const serverOnError = transport.onerror;
  // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK transport has only this callback
  transport.onerror = (error) => {
    serverOnError?.(error);
    try {
      onerror?.(error);
    } catch {
      // Reporting must never change a response.
    }
  };
}

/**
 * Whether `server` is already connected to a transport (one server cannot serve two).
 *
 * @param server - an SDK v1 or v2 server
 * @returns `true` when connected
 */
export function isConnected(server: AnyMcpServer): boolean {
  return protocolOf(server).transport !== undefined;
}
