/**
 * Self-describing session ids for handlers without `storage`: the id carries the client's
 * `initialize` record, so a fresh server built for a later request (the documented
 * per-request legacy Worker) restores the session from the id alone.
 *
 * Why this design: agents serves that Worker by falling back to the SDK's stateless mode (no
 * session id at all). Ours stays sessionful, so the same handler also keeps working at module
 * scope with server-to-client requests, and a restored server still knows the capabilities
 * the client declared (elicitation, sampling), which a stateless fallback forgets.
 *
 * Security: the record holds only what the client itself sent at `initialize`, so a forged id
 * grants nothing a client could not get by initializing; the random part keeps ids (and the
 * event-store streams keyed by them) unguessable. Without storage nothing remembers that a
 * session ended, so `DELETE` cannot stop a later request from restoring the same id.
 */
import type { JsonRpcMessage } from "./initialize-record";
import { isRecord } from "../../../is-record";

/** Ids larger than this stay plain random ids (the session then lives only in its isolate). */
const MAX_ID_LENGTH = 4096;
const SEPARATOR = ".";

/**
 * A new session id: a random UUID plus the compact initialize record.
 *
 * @param initialize - the client's `initialize` request
 * @returns the session id (visible ASCII only, as the transport spec requires)
 */
export function sessionIdWithRecord(initialize: JsonRpcMessage): string {
  const random = crypto.randomUUID();
  const params = isRecord(initialize.params) ? initialize.params : {};
  const info = isRecord(params.clientInfo) ? params.clientInfo : {};
  const capabilities = isRecord(params.capabilities) ? { ...params.capabilities } : {};
  // Experimental capabilities are free-form and can be large; nothing in the SDKs reads them back.
  delete capabilities.experimental;
  const record = {
    v: params.protocolVersion,
    c: capabilities,
    i: { name: info.name, version: info.version },
  };
  const id = `${random}${SEPARATOR}${toBase64Url(JSON.stringify(record))}`;
  return id.length <= MAX_ID_LENGTH ? id : random;
}

/**
 * The `initialize` request a session id made by {@link sessionIdWithRecord} carries.
 *
 * @param sessionId - the client's `Mcp-Session-Id`
 * @returns the initialize request to replay, or `undefined` for any other id
 */
export function recordFromSessionId(sessionId: string | null): JsonRpcMessage | undefined {
  if (sessionId === null || sessionId.length > MAX_ID_LENGTH) return undefined;
  const at = sessionId.indexOf(SEPARATOR);
  if (at === -1 || !/^[0-9a-f-]{36}$/.test(sessionId.slice(0, at))) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(fromBase64Url(sessionId.slice(at + 1)));
  } catch {
    return undefined;
  }
  if (!isRecord(record) || typeof record.v !== "string" || !isRecord(record.c)) return undefined;
  const info = isRecord(record.i) ? record.i : {};
  return {
    jsonrpc: "2.0",
    id: "session-restore",
    method: "initialize",
    params: {
      protocolVersion: record.v,
      capabilities: record.c,
      clientInfo: {
        name: typeof info.name === "string" ? info.name : "unknown",
        version: typeof info.version === "string" ? info.version : "unknown",
      },
    },
  };
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCodePoint(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(encoded: string): string {
  const binary = atob(encoded.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
    Uint8Array.from(binary, (char) => char.codePointAt(0)!),
  );
}
