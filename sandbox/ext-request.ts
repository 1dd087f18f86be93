/**
 * Sandbox extension for the OpenAPI `execute` tool (shipped as `ext-request.js`): presents what
 * the host's `codemode.request()` answers the way the seed documents use it.
 *
 * The host always answers `{ status, ok, headers, body }` (redacted, plain data; see
 * src/codemode/request/api-response.ts). This wrapper turns it into:
 * - the parsed body for a 2xx status, so `(await codemode.request(r)).result.map(…)` runs as
 *   written in Cloudflare's docs;
 * - a thrown {@link ApiError} (`status`, `headers`, `body` own properties) for any other status,
 *   so a 404 is never mistaken for data, and an uncaught one tells the model what happened;
 * - the whole `{ status, ok, headers, body }` for every status, without throwing, when the
 *   request says `response: "full"` (pagination `Link` headers, 404 vs 200).
 *
 * Security: the error is built here, in the sandbox, from the decoded plain data of the reply,
 * never from a host object, so a program cannot reach host prototypes through it; its fields and
 * message hold only what the host already redacted. Intrinsics are captured when this module
 * loads, before any user code exists.
 */
import type { SandboxErrorName } from "../src/errors";

const ErrorClass = Error;
const { stringify } = JSON;
const { hasOwn } = Object;

/** Longest body excerpt quoted in an {@link ApiError}'s message. */
const EXCERPT_CHARS = 200;

/** The error a non-2xx answer throws inside the sandbox. */
export class ApiError extends ErrorClass {
  /** The HTTP status. */
  status: number;
  /** Response headers (lower-case names, redacted; `set-cookie` dropped). */
  headers: Record<string, string>;
  /** The parsed body, as a 2xx answer would have resolved to. */
  body: unknown;

  /**
   * @param message - method, path, status and a body excerpt
   * @param reply - the host's plain answer
   */
  constructor(message: string, reply: ApiReply) {
    super(message);
    this.name = "ApiError" satisfies SandboxErrorName;
    this.status = reply.status;
    this.headers = reply.headers;
    this.body = reply.body;
  }
}

/** What the host function answers (plain data, decoded in this isolate). */
interface ApiReply {
  status: number;
  ok: boolean;
  headers: Record<string, string>;
  body: unknown;
}

type RequestFunction = (...args: unknown[]) => Promise<unknown>;

/**
 * Wraps `request` in a namespace object.
 * @param api - the namespace (e.g. `codemode`), still unfrozen, holding the host's `request`
 */
export function install(api: Record<string, unknown>): void {
  const hostRequest = api["request"];
  if (typeof hostRequest !== "function") return;
  const call = hostRequest as RequestFunction;
  api["request"] = (...args: unknown[]): Promise<unknown> => {
    const input = args[0];
    // Read once, before the call: what the program asked for decides how the answer is shown.
    const full = field(input, "response") === "full";
    const label = `${String(field(input, "method") ?? "GET").toUpperCase()} ${String(field(input, "path"))}`;
    return call(...args).then((reply) => present(reply as ApiReply, full, label));
  };
}

/** The answer as the program asked for it; throws {@link ApiError} for a non-2xx body-only answer. */
function present(reply: ApiReply, full: boolean, label: string): unknown {
  if (full) return reply;
  if (reply.status >= 200 && reply.status < 300) return reply.body;
  throw new ApiError(`${label} answered HTTP ${reply.status}: ${excerpt(reply.body)}`, reply);
}

/** A short, single-line rendering of a body for a message. */
function excerpt(body: unknown): string {
  let text: string;
  if (body === null || body === undefined) text = "(empty body)";
  else if (typeof body === "string") text = body;
  else if (body instanceof Uint8Array) text = `(${body.byteLength} bytes)`;
  else {
    try {
      text = stringify(body);
    } catch {
      text = "(unreadable body)";
    }
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/** A field of the program's argument, read defensively (a getter may throw). */
function field(input: unknown, key: string): unknown {
  try {
    return input !== null && typeof input === "object" && hasOwn(input, key)
      ? (input as Record<string, unknown>)[key]
      : undefined;
  } catch {
    return undefined;
  }
}
