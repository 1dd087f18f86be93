/**
 * The shape `codemode.request()` resolves to, for every HTTP status (documented in the
 * `execute` tool): `{ status, ok, headers, body }`, with `body` parsed JSON for JSON media
 * types, text for text, bytes otherwise, and `null` when empty. Errors are data the code can
 * branch on (`if (!r.ok) …`); only refused requests throw.
 *
 * Security defaults: configured secrets are replaced with `[REDACTED]` in headers and body before
 * the response enters the sandbox (an upstream that echoes credentials cannot leak them), and
 * `set-cookie` is dropped.
 */

/** What sandbox code receives from `codemode.request()`. */
export interface ApiResult {
  status: number;
  ok: boolean;
  headers: Record<string, string>;
  body: unknown;
}

/** A plain response a host callback may return instead of a `Response`. */
export interface ApiResponseInit {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

const DROPPED_HEADERS = new Set(["set-cookie", "set-cookie2"]);

/**
 * Normalizes the host callback's answer for the sandbox.
 * @param response - a `Response` or `{ status, headers?, body? }`
 * @param secrets - strings that must never reach the sandbox
 */
export async function toApiResult(
  response: Response | ApiResponseInit,
  secrets: readonly string[],
): Promise<ApiResult> {
  if (!(response instanceof Response)) return plainApiResult(response, secrets);
  const redact = redactor(secrets);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    if (!DROPPED_HEADERS.has(key)) headers[key] = redact(value);
  });
  const type = response.headers.get("content-type") ?? "";
  let body: unknown = null;
  if (/json/i.test(type)) {
    const text = redact(await response.text());
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch {
      body = text;
    }
  } else if (/^text\/|xml|x-www-form-urlencoded|javascript/i.test(type) || type === "") {
    const text = redact(await response.text());
    body = text === "" ? null : text;
  } else {
    const bytes = new Uint8Array(await response.arrayBuffer());
    body = bytes.byteLength === 0 ? null : bytes;
  }
  return { status: response.status, ok: response.ok, headers, body };
}

/**
 * The synchronous half of {@link toApiResult}, for a plain `{ status, headers?, body? }` (no
 * body to read, so no await: this runs on every `codemode.request()`).
 * @param response - what the host callback returned
 * @param secrets - strings that must never reach the sandbox
 */
export function plainApiResult(response: ApiResponseInit, secrets: readonly string[]): ApiResult {
  const live = secrets.length === 0 ? secrets : secrets.filter((secret) => secret !== "");
  const redact = live.length === 0 ? undefined : redactor(live);
  // With no secrets configured there is nothing to redact: skip copying the whole body.
  const body =
    response.body === undefined
      ? null
      : redact === undefined
        ? response.body
        : redactDeep(response.body, redact);
  const headers: Record<string, string> = {};
  if (response.headers)
    for (const [k, v] of Object.entries(response.headers))
      if (!DROPPED_HEADERS.has(k.toLowerCase()))
        headers[k.toLowerCase()] = redact ? redact(String(v)) : String(v);
  return {
    status: response.status,
    ok: response.status >= 200 && response.status < 300,
    headers,
    body,
  };
}

/**
 * A copy of a JSON-like value with every configured secret in its strings (keys included)
 * replaced by `[REDACTED]`; the value itself when no secret is configured.
 * @param value - e.g. the spec shipped to the sandbox
 * @param secrets - strings that must never reach the sandbox
 */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  const live = secrets.filter((secret) => secret !== "");
  return live.length === 0 ? value : (redactDeep(value, redactor(live)) as T);
}

/**
 * An error fit to enter the sandbox: same name, configured secrets replaced in its message (a
 * failing request callback may quote a URL with a key, or an upstream message echoing a token).
 * @param error - what the host callback threw
 * @param secrets - strings that must never reach the sandbox
 */
export function redactError(error: unknown, secrets: readonly string[]): Error {
  const live = secrets.filter((secret) => secret !== "");
  const original = error instanceof Error ? error : new Error(String(error));
  if (live.length === 0) return original;
  const redact = redactor(live);
  const safe = new Error(redact(original.message));
  safe.name = redact(original.name);
  return safe;
}

/** Replaces every configured secret in a text with `[REDACTED]`. */
function redactor(secrets: readonly string[]): (text: string) => string {
  const live = secrets.filter((secret) => secret !== "");
  return (text) => live.reduce((out, secret) => out.split(secret).join("[REDACTED]"), text);
}

function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (value && typeof value === "object" && !(value instanceof Uint8Array)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [redact(k), redactDeep(v, redact)]),
    );
  }
  return value;
}
