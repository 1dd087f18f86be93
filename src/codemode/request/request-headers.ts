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
 * - **Coding and framing** (`Accept-Encoding`, `Accept-Charset`, `TE`, `Expect`, `Connection`,
 *   `Upgrade`, `Transfer-Encoding`, `Content-Length`, …): the runtime frames the message and
 *   decodes what it can (workerd decodes `gzip` and `br` but passes `deflate` on as it came). A
 *   program that chose the coding got an echoed credential compressed, past redaction, and
 *   inflated it in the sandbox (or, with `Accept-Charset: utf-32`, in a charset redaction does
 *   not read, NULs between its characters); `Expect: 100-continue` made workerd read the interim
 *   `100` as the answer and hand the real response over as its body; `Upgrade` turned the
 *   request into a WebSocket handshake.
 * - **Partial content** (`Range`, `If-Range`) unless the operation declares the header:
 *   redaction matches whole forms of a secret, so an echoed credential read in ranges passed in
 *   pieces and the program joined them.
 */
import type { OpenApiSpec } from "../../openapi/openapi-spec";
import type { CompactOperation, ParameterObject } from "../../openapi/types";

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

const TRANSPORT_HEADERS = new Set([
  "accept-encoding",
  "accept-charset",
  "te",
  "expect",
  "connection",
  "keep-alive",
  "upgrade",
  "transfer-encoding",
  "content-length",
  "trailer",
  "proxy-connection",
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
  if (TRANSPORT_HEADERS.has(lower))
    return `do not set the "${name}" header: the host chooses how the request and its response are framed and encoded (so the response can be checked for credentials before the program sees it). Leave it out. Nothing was sent.`;
  return undefined;
}

const PARTIAL_HEADERS = new Set(["range", "if-range"]);

/**
 * Why sandbox code may not send a partial-content header with this request, or undefined: only
 * an operation that declares `Range` (or `If-Range`) as a header parameter takes it.
 * @param headers - the request's headers (already past {@link headerRefusal})
 * @param spec - the served spec (parameters may be `$ref`s)
 * @param operation - the operation the request matched, if any
 */
export function partialContentRefusal(
  headers: Record<string, string>,
  spec: OpenApiSpec,
  operation: CompactOperation | undefined,
): string | undefined {
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (!PARTIAL_HEADERS.has(lower)) continue;
    const declared = (operation?.parameters ?? []).some((entry) => {
      const param = spec.deref<ParameterObject | undefined>(entry);
      return param?.in === "header" && String(param.name).toLowerCase() === lower;
    });
    if (!declared)
      return `do not set the "${name}" header: this operation does not declare it, and a response read in ranges could carry a credential past redaction in pieces. Ask for the whole response. Nothing was sent.`;
  }
  return undefined;
}
