/**
 * What the host answers every `codemode.request()` with: `{ status, ok, headers, body }`, with
 * `body` parsed JSON for JSON media types, text for text, bytes otherwise, and `null` when empty.
 * The sandbox presents it (sandbox/ext-request.ts, documented in the `execute` tool): by default
 * the program gets the body of a 2xx answer and an `ApiError` (status, headers, body) for any
 * other status, as the seed documents use it; with `response: "full"` it gets this whole shape
 * for every status. Why a throw and not data: a 404 read as `response.result` would otherwise
 * be `undefined`, silently confused with an empty success.
 *
 * Security defaults: configured secrets are replaced with `[REDACTED]` before the response enters
 * the sandbox (an upstream that echoes credentials cannot leak them), on every channel: header
 * names and values; the raw body bytes (any charset, any offset, NULs between characters); the
 * text in its declared charset (./body-charset.ts, UTF-32 included) when it differs from the
 * bytes; all of it decoded first (../redaction/redaction.ts: percent, character references,
 * escapes, quoted-printable, base16/32/64, two layers). A JSON body is parsed after redaction; its
 * escapes were decoded in the search. Binary bodies are redacted in place (the secret's bytes
 * replaced by the marker), not refused. Withheld, with a note saying why, instead of handed
 * over: a body still compressed (`Content-Encoding: deflate`, which workerd does not decode, or a
 * gzip body nobody decoded), a body in a charset that spells ASCII with other bytes and is not
 * decoded here (UTF-7, EBCDIC), and a body still holding a secret after it was cut out. The
 * status text never enters the sandbox, and `set-cookie` is dropped.
 */
import {
  asciiBodyText,
  decodeBody,
  utf8Reading,
  wellFormedUtf8Text,
  type BodyText,
  type Utf8Reading,
} from "./body-charset";
import { secretRedactor, type Redactor } from "../redaction/redaction";
import { yieldThread } from "../redaction/slices";
import {
  collectAfterLargeBody,
  collectingPause,
  collectionBudget,
  type CollectionBudget,
} from "./large-body-collection";
import { responseBudget, type ResponseBudget } from "./response-budget";

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

// `ok` too: an ApiResult (what toApiResult makes, e.g. a callback that redacted a Response itself)
// is a plain answer, not a body.
const INIT_KEYS = new Set(["status", "statusText", "ok", "headers", "body"]);

/**
 * A callback's plain answer as `{ status, headers?, body? }`: kept as is when it is one (an
 * object with an integer HTTP status and no keys but `status`, `statusText`, `ok`, `headers`,
 * `body`),
 * otherwise taken as the parsed body of a `200` answer (what `@cloudflare/codemode` callbacks
 * return). `undefined` is an empty body.
 * @param answer - what the request callback returned (not a `Response`)
 */
export function asResponseInit(answer: unknown): ApiResponseInit {
  if (answer !== null && typeof answer === "object" && !Array.isArray(answer)) {
    const status = (answer as { status?: unknown }).status;
    if (
      Number.isInteger(status) &&
      (status as number) >= 100 &&
      (status as number) <= 599 &&
      Object.keys(answer).every((key) => INIT_KEYS.has(key))
    )
      return answer as ApiResponseInit;
  }
  return answer === undefined ? { status: 200 } : { status: 200, body: answer };
}

/**
 * Normalizes the host callback's answer for the sandbox.
 * @param response - a `Response` or `{ status, headers?, body? }`
 * @param secrets - strings that must never reach the sandbox
 * @param collections - the run's budget of forced collections around large bodies
 *   (./large-body-collection.ts; default: one of its own, bounded only by the host's gap)
 * @param responses - the run's reading of response bodies, per body and per run
 *   (./response-budget.ts; default: one of its own, with the default limits)
 * @param signal - the run's: reading the body stops once it aborts
 * @throws SandboxError `LimitError` for a body past a limit of `responses` (none of it returned)
 */
export async function toApiResult(
  response: Response | ApiResponseInit,
  secrets: readonly string[],
  collections: CollectionBudget = collectionBudget(),
  responses: ResponseBudget = responseBudget(),
  signal?: AbortSignal,
): Promise<ApiResult> {
  if (!(response instanceof Response)) return plainApiResult(response, secrets);
  const redactor = secretRedactor(secrets);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    if (!DROPPED_HEADERS.has(key)) headers[redactor.text(key)] = redactor.text(value);
  });
  const type = response.headers.get("content-type") ?? "";
  // Read within the run's limits, never whole whatever its size (issue #40): past a limit the
  // body is cancelled and the program gets a LimitError, not part of it.
  let raw = await responses.readBody(response, signal);
  const withheld = (reason: string) => ({
    status: response.status,
    ok: response.ok,
    headers,
    body: `[response body withheld: ${reason}]`,
  });
  const coding = stillEncoded(response.headers.get("content-encoding"), raw);
  if (coding)
    return withheld(
      `it came compressed (Content-Encoding: ${coding}), so it cannot be checked for credentials before the program sees it`,
    );
  // The raw bytes first: a secret in a charset other than the declared one is caught here.
  // Decoded once as UTF-8: its ASCII text, if all ASCII, and below its UTF-8 text, if needed.
  let reading: Utf8Reading | undefined = utf8Reading(raw);
  const ascii = reading.ascii;
  const size = raw.byteLength;
  // A large body is searched in slices, the host's thread given to other clients between them.
  const sliced = size >= SLICED_BODY;
  const pause = collectingPause(size, yieldThread, collections);
  // Whether nothing was cut: then the bytes are the body's, and `ascii` (if any) reads them.
  let untouched: boolean;
  let bytes: Uint8Array | undefined;
  // The body's text when it is well-formed UTF-8 decoded as UTF-8 (see below).
  let utf8Text: string | undefined;
  if (sliced && ascii !== undefined && redactor.active) {
    // A large ASCII body's text stands for its bytes (one byte per character): the bytes are let
    // go while it is searched, and made again only if needed (issue #40: the host's memory).
    // Given back at once, not at the next collection: detaching a buffer frees its memory.
    release(raw);
    raw = EMPTY;
    reading = undefined;
    const found = await redactor.cleanAsciiBytesInSlices(ascii, pause);
    if (found === undefined) return withheld(UNSAFE);
    untouched = typeof found === "string";
    const textual = TEXTUAL.test(type) || type === "";
    // A clean ASCII text body in an ASCII charset is handed over as its text: no bytes again.
    const text = untouched && textual ? asciiBodyText(ascii, type) : undefined;
    if (text !== undefined) return finished(text);
    bytes = typeof found === "string" ? asciiEncoder.encode(found) : found;
  } else {
    const search = (value: Uint8Array, view: string | undefined, readAsUtf8: boolean) =>
      sliced
        ? redactor.cleanBytesInSlices(value, view, pause, readAsUtf8)
        : redactor.cleanBytes(value, view, readAsUtf8);
    // A text body decoded as UTF-8 from well-formed UTF-8 is searched below as text: that text
    // is the bytes' UTF-8 reading, so the byte search does not make it too (a CJK answer took
    // 60–70% longer with both). Other charsets keep it: a program can encode their text back.
    utf8Text =
      ascii === undefined && redactor.active && (TEXTUAL.test(type) || type === "")
        ? wellFormedUtf8Text(raw, type, reading)
        : undefined;
    // Its text, if any, is utf8Text now: not held through the search for a body that needs none.
    reading = undefined;
    bytes = await search(raw, ascii, utf8Text === undefined);
    if (!bytes) return withheld(UNSAFE);
    untouched = bytes === raw;
    if (utf8Text !== undefined && !untouched) {
      // Cut bytes may have lost a sequence's first bytes (a form found at any offset): their
      // text is that reading only while they stay well-formed, else they get it after all.
      utf8Text = wellFormedUtf8Text(bytes, type);
      if (utf8Text === undefined) bytes = await search(bytes, undefined, true);
      if (!bytes) return withheld(UNSAFE);
    }
  }
  if (bytes.byteLength === 0)
    return { status: response.status, ok: response.ok, headers, body: null };
  const textual = TEXTUAL.test(type) || type === "";
  if (!textual) {
    // Bytes are handed over as they are (as bytes beside the wire text, sandbox/codec.ts), but
    // their redaction's garbage is collected as after a text body: without, a program reading 4
    // binary bodies of 4 MiB grew the host by ~100 MiB, with a credential configured or not
    // (bench/README.md, "Random-byte bodies in the real host").
    collectAfterLargeBody(size, collections);
    return { status: response.status, ok: response.ok, headers, body: bytes };
  }
  // Bytes nothing was cut from read as the ASCII text already decoded, in an ASCII charset; the
  // UTF-8 text decoded to decide the byte search is their text.
  const decoded: BodyText =
    utf8Text !== undefined
      ? { kind: "text", text: utf8Text, sameAsBytes: false }
      : decodeBody(bytes, type, untouched ? ascii : undefined);
  if (decoded.kind === "unreadable") return withheld(decoded.reason);
  // Text that reads exactly as the bytes did (ASCII) was searched already, in every view.
  const text = decoded.sameAsBytes
    ? decoded.text
    : sliced
      ? await redactor.cleanTextInSlices(decoded.text, pause)
      : redactor.cleanText(decoded.text);
  if (text === undefined) return withheld(UNSAFE);
  raw = EMPTY;
  bytes = undefined;
  return finished(text);

  /** The answer with a searched text as its body (parsed when JSON). */
  async function finished(searched: string): Promise<ApiResult> {
    const body = /json/i.test(type)
      ? await jsonBody(searched, redactor, sliced && pause)
      : searched;
    // The body's bytes are garbage now (the program gets the text): let the collection free them.
    collectAfterLargeBody(size, collections);
    return { status: (response as Response).status, ok: (response as Response).ok, headers, body };
  }
}

/** Media types whose body the program gets as text (or parsed JSON), not bytes. */
const TEXTUAL = /json|^text\/|xml|x-www-form-urlencoded|javascript/i;

const EMPTY = new Uint8Array(0);

/**
 * Frees the memory of bytes nothing else holds (their buffer detached), where the runtime can
 * (`ArrayBuffer.prototype.transfer`); elsewhere the next collection frees it.
 */
function release(bytes: Uint8Array): void {
  const buffer = bytes.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  if (bytes.byteLength !== buffer.byteLength || typeof buffer.transfer !== "function") return;
  try {
    buffer.transfer(0);
  } catch {
    // a buffer the runtime will not detach: the next collection frees it
  }
}
const asciiEncoder = new TextEncoder();

/**
 * Bodies from this size on are redacted in slices (../redaction/slices.ts): the local server's
 * host serves every client in one thread, and a program chooses what an echoing API returns (a
 * few MB of escapes held it for seconds: issue #40). Smaller ones, the common case, are redacted
 * at once: a pause costs a macrotask hop, and their redaction takes a few milliseconds.
 */
export const SLICED_BODY = 65_536;

const UNSAFE =
  "a configured credential was found in it in a form that could not be cut out cleanly, so it is not handed to the program";

/**
 * The synchronous half of {@link toApiResult}, for a plain `{ status, headers?, body? }` (no
 * body to read, so no await: this runs on every `codemode.request()`).
 * @param response - what the host callback returned
 * @param secrets - strings that must never reach the sandbox
 */
export function plainApiResult(response: ApiResponseInit, secrets: readonly string[]): ApiResult {
  const redactor = secretRedactor(secrets);
  // With no secrets configured there is nothing to redact: the body is not walked or copied.
  const body = response.body === undefined ? null : redactor.data(response.body);
  return plainResultWith(response, redactor, body);
}

/**
 * A plain answer with its headers redacted and `body` (already redacted by the caller, e.g. in
 * slices: ./plain-answer.ts) as its body.
 * @param response - what the host callback returned
 * @param redactor - the configured secrets
 * @param body - the answer's body, redacted
 */
export function plainResultWith(
  response: ApiResponseInit,
  redactor: Redactor,
  body: unknown,
): ApiResult {
  const headers: Record<string, string> = {};
  if (response.headers)
    for (const [k, v] of Object.entries(response.headers))
      if (!DROPPED_HEADERS.has(k.toLowerCase()))
        headers[redactor.text(k.toLowerCase())] = redactor.text(String(v));
  return {
    status: response.status,
    ok: response.status >= 200 && response.status < 300,
    headers,
    body,
  };
}

/**
 * The content coding a body is still in, or undefined when it is plain. workerd's `fetch` decodes
 * `gzip` and `br` (the header stays) but passes `deflate` on as it came; a compressed body hides
 * an echoed credential from redaction, and the program could inflate it. So: `deflate` (and any
 * coding but identity, gzip and br) counts as encoded; `gzip` only when the bytes still start
 * with gzip's magic number (a `Response` a callback built itself is not decoded by anyone).
 */
function stillEncoded(header: string | null, bytes: Uint8Array): string | undefined {
  if (!header || bytes.byteLength === 0) return undefined;
  for (const coding of header.toLowerCase().split(",")) {
    const name = coding.trim();
    if (name === "" || name === "identity" || name === "br") continue;
    if (name === "gzip" || name === "x-gzip") {
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) return name;
      continue;
    }
    return name;
  }
  return undefined;
}

/**
 * A JSON body, parsed. Its text was searched in every decoded view, JSON's escapes included, so
 * the parsed strings hold no secret; they are walked again only when a secret itself contains a
 * character that starts an escape (`%&\\=`): decoding such a secret's text would change it, so
 * only the parsed value shows it as it is. A large body's walk is sliced (`pause`: its pause).
 */
function jsonBody(text: string, redactor: Redactor, pause: false | (() => Promise<void>)): unknown {
  if (text.trim() === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (!redactor.escapable || !text.includes("\\")) return parsed;
  // A large body's strings in slices, as its text was (issue #40: one `data` walk over 4 MB of
  // parsed JSON held the host thread 0.4–0.6 s).
  return pause ? redactor.dataInSlices(parsed, pause) : redactor.data(parsed);
}
