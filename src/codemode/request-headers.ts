/**
 * The request headers sandbox code may not set, and why. The request the host validates, shows
 * for approval and sends is `method` + `path` (+ query, body): a header that makes the server act
 * on something else turns a checked `GET` into an unchecked `DELETE`.
 *
 * - **Credentials** (`Authorization`, `Cookie`, API-key headers): the host's request callback
 *   adds them.
 * - **Method, path and host overrides** (`X-HTTP-Method-Override`, `X-Original-URL`, `Host`, …):
 *   frameworks and gateways honour them (method-override middleware, IIS/Symfony URL rewriting,
 *   virtual hosting), so the server would run a method or path the spec check and the approval
 *   rule never saw. The program calls the operation it means instead.
 */

const CREDENTIAL_HEADERS = new Set([
  "authorization",
  "cookie",
  "proxy-authorization",
  "x-auth-key",
  "x-auth-email",
  "x-api-key",
]);

const OVERRIDE_HEADERS = new Set([
  "x-http-method-override",
  "x-http-method",
  "x-method-override",
  "x-original-url",
  "x-rewrite-url",
  "x-original-method",
  "host",
  "x-forwarded-host",
  "forwarded",
]);

/**
 * Why sandbox code may not set a header, or undefined when it may.
 * @param name - the header name as the program wrote it
 * @returns the refusal, ready for a `codemode.request()` error message
 */
export function headerRefusal(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (CREDENTIAL_HEADERS.has(lower))
    return `do not set the "${name}" header; authentication is added by the host.`;
  if (OVERRIDE_HEADERS.has(lower))
    return `do not set the "${name}" header: it makes the server act on another method, path or host than the one checked and approved. Call the operation you mean (its method and path) instead. Nothing was sent.`;
  return undefined;
}
