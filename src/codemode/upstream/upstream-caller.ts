/**
 * Who a `code` run acts for, as far as a remote upstream can tell: the headers it is sent with.
 * A remote upstream's `headers` may be a function of the outer caller (forward the caller's own
 * token, or pick a per-user credential); everything reused across runs (the negotiated era, a
 * 2025-era session id, the tool list) is then kept per distinct set of headers, so two callers
 * with different credentials never share an upstream session or see each other's tool list.
 * The SDK says the same of a cached discovery: "reuse only within one authorization context".
 */
import { CodeModeError } from "../../errors";
import { credentialSecrets } from "../redaction/redaction";
import type { CodeUpstream, UpstreamCaller } from "./upstream-connection";

/**
 * One authorization context of one upstream: the headers a run sends and the key its reusable
 * state is cached under. Fixed headers share one scope (key `""`).
 */
export interface CallerScope {
  readonly key: string;
  readonly headers?: Record<string, string>;
  /** Credential forms of computed header values (removed from results like `secrets`). */
  readonly secrets: readonly string[];
}

/** The scope of upstreams without per-caller headers. */
export const SHARED_SCOPE: CallerScope = Object.freeze({
  key: "",
  secrets: Object.freeze([]),
});

/**
 * Resolves the scope of `caller` for `upstream`: calls its `headers` function when it has one.
 * @param upstream - the configured upstream
 * @param caller - the outer request
 * @throws CodeModeError `upstream_headers_failed` when the `headers` function fails or
 *   returns something other than an object of strings
 */
export async function callerScope(
  upstream: CodeUpstream,
  caller: UpstreamCaller,
): Promise<CallerScope> {
  if (!("url" in upstream) || upstream.headers === undefined) return SHARED_SCOPE;
  if (typeof upstream.headers !== "function")
    return {
      key: "",
      headers: upstream.headers,
      secrets: SHARED_SCOPE.secrets,
    };
  let headers: unknown;
  try {
    headers = await upstream.headers(caller);
  } catch (error) {
    throw new CodeModeError(
      "upstream_headers_failed",
      `codeMcpServer: the upstream's \`headers\` function failed: ${(error as Error)?.message ?? String(error)}. Return the headers for this caller, or throw a clear error when the caller has no credential.`,
      { cause: error },
    );
  }
  if (
    typeof headers !== "object" ||
    headers === null ||
    Object.values(headers).some((v) => typeof v !== "string")
  )
    throw new CodeModeError(
      "upstream_headers_failed",
      "codeMcpServer: the upstream's `headers` function must return an object of header names to string values.",
    );
  const fixed = headers as Record<string, string>;
  const entries = Object.entries(fixed)
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    key: await digest(JSON.stringify(entries)),
    headers: fixed,
    secrets: Object.freeze(entries.flatMap(([, value]) => credentialSecrets(value))),
  };
}

/** A SHA-256 hex digest: the cache key never holds the credential itself. */
async function digest(text: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
