/**
 * Refuses the SDK v1 transport options users carry over from older `createMcpHandler`
 * versions. They configured sessions, which the stateless handler does not have; silently
 * ignoring them would change behaviour without a word, so each one fails with its fix.
 */
import { CodeModeError } from "../../errors";

/** Why each v1 option cannot apply, and what to do instead. */
const V1_OPTION_FIXES: Readonly<Record<string, string>> = {
  transport:
    "the stateless handler builds a fresh transport for every request. Remove `transport`; to keep a sessionful v1 transport, serve it with createLegacyMcpHandler(server, { transport }) or McpAgent.",
  storage:
    "the stateless handler keeps no session storage. Remove `storage`; keep application data in a Durable Object, D1, KV or R2 behind an authenticated handle, or use McpAgent for 2025-era sessions.",
  sessionIdGenerator:
    "the stateless handler issues no session ids. Remove `sessionIdGenerator`; use McpAgent if clients need sessions.",
  eventStore:
    "the stateless handler has no resumable streams. Remove `eventStore`; use McpAgent with DurableObjectEventStore for replay.",
  enableJsonResponse:
    'use `responseMode: "json"` instead (it also drops notifications sent before the final result).',
  onsessioninitialized:
    "the stateless handler has no sessions to initialize. Remove it; use McpAgent or createLegacyMcpHandler for 2025-era sessions.",
  onsessionclosed:
    "the stateless handler has no sessions to close. Remove it; use McpAgent or createLegacyMcpHandler for 2025-era sessions.",
  enableDnsRebindingProtection:
    "DNS-rebinding protection is always on here. Remove it; name your hosts in `allowedHostnames` and browser origins in `allowedOriginHostnames`.",
  allowedHosts:
    "use `allowedHostnames` (host names without ports; matching ignores scheme and port).",
  allowedOrigins:
    "use `allowedOriginHostnames` (origin host names; matching ignores scheme and port).",
  retryInterval:
    "the stateless handler sends no SSE retry hints (there is nothing to resume). Remove it; McpAgent has `retryIntervalMs`.",
};

/**
 * Throws when `options` carries any SDK v1 transport option (`transport`, `storage`,
 * `sessionIdGenerator`, `eventStore`, `enableJsonResponse`, `onsessioninitialized`,
 * `onsessionclosed`, `enableDnsRebindingProtection`, `allowedHosts`, `allowedOrigins`,
 * `retryInterval`).
 *
 * @param options - the options object given to `createMcpHandler`
 * @throws CodeModeError with code `"unsupported_option"`, naming the option and the fix
 */
export function refuseV1TransportOptions(options: object): void {
  for (const [name, fix] of Object.entries(V1_OPTION_FIXES)) {
    if ((options as Record<string, unknown>)[name] !== undefined) {
      throw new CodeModeError(
        "unsupported_option",
        `createMcpHandler: the SDK v1 option \`${name}\` is not supported: ${fix}`,
      );
    }
  }
}
