/**
 * A POST's JSON body, read once for the whole handler. Before, the 2025-era task check read
 * every request's body from a clone (`request.clone()` tees the stream) and the SDK cloned the
 * request again to keep a readable copy for its legacy lane: on the local server's host, the
 * clone and second read were ~7 % of a `ping`'s CPU and ~3 % of an `execute`'s (issue #43).
 * Now the body is read here, from the request itself, and handed on parsed (the SDK's
 * `parsedBody`, which skips its read and its clone); whatever is not a JSON value the SDK
 * would take as one goes on as a request that reads the same bytes again, so the SDK answers
 * it exactly as before (its parse error, its size limit, its legacy lane).
 */
import { DEFAULT_MAX_REQUEST_BODY_SIZE, isJsonContentType } from "@modelcontextprotocol/server";
import { concatBytes } from "../common/concat-bytes";
import { refuseJsonShape } from "../common/shape-refusal";

/**
 * One decoder for every request of the isolate, instead of one per request (a measurable share
 * of a `ping`'s host CPU, issue #43). Safe to share: `decode` is only ever called without
 * `{ stream: true }`, which flushes and resets the decoder on every call, so no partial character
 * of one request's body is carried into the next.
 */
const decoder = new TextDecoder();

/** What {@link readBodyOnce} made of a request. */
export interface BodyOnce {
  /** The request to pass on: the same one, or one that reads the same bytes (its body was read). */
  request: Request;
  /** The body as JSON, when it was one (undefined: not read, empty, not JSON, or too large). */
  parsedBody?: unknown;
  /**
   * The answer for a body past the shape limits (common/json-shape.ts), never parsed: a
   * JSON-RPC `-32600` error (`400`) for each of its messages' ids (or one with id `null`: none,
   * or more than json-shape.ts's `MAX_IDS`; common/shape-refusal.ts).
   */
  refused?: Response;
}

/**
 * Reads a POST's body once and parses it, when the SDK would read and parse it too: a `POST`
 * with a JSON content type, no body parsed already, a body not yet used, and a declared
 * `Content-Length` within `maxBytes` (or none). A body of declared length is read whole in one
 * step; a body of unknown length over `maxBytes` is not read past the limit: the request passed
 * on replays what was read and then the rest. Either way the SDK refuses one over the limit
 * with its own `413` as before. A body that is empty or not JSON goes on as bytes, for the
 * SDK's own answer.
 * @param request - the HTTP request
 * @param maxBytes - the SDK's `maxRequestBodySize` (its default when unset)
 * @param parsedBody - a body a framework already parsed (then nothing is read)
 */
export async function readBodyOnce(
  request: Request,
  maxBytes: number = DEFAULT_MAX_REQUEST_BODY_SIZE,
  parsedBody?: unknown,
): Promise<BodyOnce> {
  const body = request.body;
  const declared = request.headers.get("content-length");
  if (
    parsedBody !== undefined ||
    request.method.toUpperCase() !== "POST" ||
    body === null ||
    request.bodyUsed ||
    !isJsonContentType(request.headers.get("content-type")) ||
    Number(declared) > maxBytes
  )
    return { request, parsedBody };
  const bytes =
    declared !== null && DECIMAL.test(declared)
      ? await readDeclared(request)
      : await readStreamed(request, body, maxBytes);
  if (!(bytes instanceof Uint8Array)) return { request: bytes };
  // Larger than the limit (only a Request built in-process can carry more than it declares):
  // the SDK reads the same bytes and refuses them.
  if (bytes.byteLength > maxBytes) return { request: withBody(request, bytes) };
  const text = decoder.decode(bytes);
  // Its shape before its parse: a parse builds every value, and a client chooses how many
  // (json-shape.ts). A body past the limits is refused without being parsed.
  const refused = refuseJsonShape(text);
  if (refused) return { request, refused };
  if (text.length > 0) {
    try {
      return { request, parsedBody: JSON.parse(text) };
    } catch {
      // not JSON: the SDK's parse error, from the same bytes
    }
  }
  return { request: withBody(request, bytes) };
}

/** A `Content-Length` value: digits only (what `Number` would read otherwise is not one). */
const DECIMAL = /^\d{1,15}$/;

/**
 * A body of declared length, at most the limit (checked before): read whole by the runtime in
 * one step. The HTTP framing holds a received body to its `Content-Length`, so this reads no
 * more than the limit; a stream reader's chunk by chunk loop cost a `ping` ~5 % of the host's
 * CPU samples (issue #43). Returns the request to pass on instead when the body is unreadable.
 */
async function readDeclared(request: Request): Promise<Uint8Array | Request> {
  try {
    return new Uint8Array(await request.arrayBuffer());
  } catch {
    // An unreadable body: the SDK reads the failure again and answers its own 400.
    return withBody(request, failingStream());
  }
}

/**
 * A body of unknown length (a chunked upload), read chunk by chunk up to the first chunk that
 * crosses `maxBytes`; past it, the request to pass on replays what was read and then the rest.
 */
async function readStreamed(
  request: Request,
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | Request> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch {
      // An unreadable body: the SDK reads the failure again and answers its own 400.
      return withBody(request, failingStream());
    }
    if (read.done) break;
    chunks.push(read.value);
    size += read.value.byteLength;
    // Too large: stop reading; the SDK reads on from here and refuses it.
    if (size > maxBytes) return withBody(request, replay(chunks, reader));
  }
  return concatBytes(chunks, size);
}

/** The request with `body` in place of its (read) one; method, headers, URL and signal kept. */
function withBody(request: Request, body: BodyInit): Request {
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
  });
}

/** A stream of the chunks already read, then the rest of `reader`. */
function replay(
  chunks: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next < chunks.length) return controller.enqueue(chunks[next++]!);
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** A body whose read fails, as the original's did. */
function failingStream(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    pull: (controller) => controller.error(new Error("the request body could not be read")),
  });
}
