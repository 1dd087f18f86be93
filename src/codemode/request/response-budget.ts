/**
 * The bytes of API response bodies the host reads for one run, bounded per body and per run
 * (issue #40, "Host work bounded by what a program controls").
 *
 * Why: a program chooses what it asks an API for (a page size, an export, an echo of what it
 * sent, a stream that never ends), and the host read every body whole (`arrayBuffer()`) before
 * redacting it: one huge or endless answer, or many at once, grew the host without bound, and
 * every byte of them was then searched for the credential on the host's thread (~130–360 ms per
 * MiB, bench/README.md). So a body is read from its stream chunk by chunk, each chunk charged
 * first to the body and to the run; past either limit the stream is cancelled (the upstream
 * stops sending), what was read is dropped, and the program gets a `LimitError` naming the limit
 * and what to do. Never a partial body passed off as the whole: the program gets all of it or
 * none of it.
 *
 * The defaults ({@link MAX_RESPONSE_BYTES}, {@link MAX_RESPONSE_BYTES_PER_RUN}) say why they are
 * what they are; both are settable (`maxResponseBytes` and `maxResponseBytesPerRun` of
 * `openApiMcpServer`; the product's `MAX_RESPONSE_BYTES` and `MAX_RESPONSE_BYTES_PER_RUN`).
 */
import { CodeModeError, SandboxError } from "../../errors";

const MIB = 1_048_576;

/**
 * Bytes of one response body the host reads, at most: 16 MiB.
 *
 * Why this much: it holds the largest answers of real APIs a program reads whole. The
 * Cloudflare API's lists are paginated (a page of a few hundred to a few thousand records, a few
 * MB at most), and its largest single answers (a Worker script, at most 10 MB; a GraphQL
 * analytics answer, at most 10,000 rows) are under it. Why not more: the answer crosses to the
 * sandbox as one RPC value, which the platform caps at 32 MiB, and a text body crosses as JSON
 * text, which escapes can make twice as long; 16 MiB is also the ceiling of every byte limit of
 * a run (src/executor/limits.ts). A larger one (a Workers KV value may be 25 MiB) can be allowed
 * up to {@link MAX_RESPONSE_BYTES_CEILING}.
 */
export const MAX_RESPONSE_BYTES = 16 * MIB;

/**
 * Bytes of response bodies one run reads, at most, all its bodies together: 64 MiB, four bodies
 * at {@link MAX_RESPONSE_BYTES}, or 640 pages of 100 KB.
 *
 * Why: every byte read is searched for the credential on the host's thread, which serves every
 * client (~130–360 ms per MiB for the costliest bodies: 64 MiB is 8–23 s of it, most of a 30 s
 * run), and bodies read at once are held at once (a program may start 1,000 requests together:
 * the run's budget bounds them all, since every chunk is charged as it arrives). The same as what
 * a run may send (`MAX_SENT_CHARS_PER_RUN`, ./sent-check.ts). A program that needs more reads
 * it over several runs.
 */
export const MAX_RESPONSE_BYTES_PER_RUN = 64 * MIB;

/** The largest {@link MAX_RESPONSE_BYTES} may be set to: one RPC value's cap (32 MiB). */
export const MAX_RESPONSE_BYTES_CEILING = 32 * MIB;

/** The largest {@link MAX_RESPONSE_BYTES_PER_RUN} may be set to: 1 GiB. */
export const MAX_RESPONSE_BYTES_PER_RUN_CEILING = 1_024 * MIB;

/** The two limits of a {@link ResponseBudget}. */
export interface ResponseLimits {
  /** Bytes of one body (default {@link MAX_RESPONSE_BYTES}). */
  maxBytes: number;
  /** Bytes of every body of the run together (default {@link MAX_RESPONSE_BYTES_PER_RUN}). */
  maxBytesPerRun: number;
}

/** Which limit a read would pass: see {@link overResponseLimit}. */
export type ResponseLimitHit = "body" | "run" | undefined;

/**
 * Which limit taking `more` bytes would pass: the body's (`body`) before the run's (`run`), or
 * none. A body may be exactly at either limit.
 * @param body - bytes of this body read so far
 * @param run - bytes of every body of the run read so far (this one's included)
 * @param more - bytes about to be taken (a chunk, or a declared length still to come)
 * @param limits - the limits
 */
export function overResponseLimit(
  body: number,
  run: number,
  more: number,
  limits: ResponseLimits,
): ResponseLimitHit {
  if (body + more > limits.maxBytes) return "body";
  if (run + more > limits.maxBytesPerRun) return "run";
  return undefined;
}

/** One run's reading of response bodies; build one per run with {@link responseBudget}. */
export interface ResponseBudget {
  /** The limits it enforces. */
  readonly limits: Readonly<ResponseLimits>;
  /** Bytes of response bodies the run has read so far (cut-off bodies included: they were read). */
  readonly read: number;
  /**
   * Reads a response's whole body within the limits, charging the run as it goes.
   * @param response - the answer whose body is read (an unread body)
   * @param signal - the run's: the read stops (the body cancelled) once it aborts
   * @throws SandboxError `LimitError` past either limit (the body cancelled, nothing kept), or
   *   the signal's reason once it aborts
   */
  readBody(response: Response, signal?: AbortSignal): Promise<Uint8Array>;
}

/**
 * Limits checked: whole numbers from 1 to their ceilings.
 * @param limits - the limits given (defaults for those not given)
 * @throws CodeModeError `invalid_option` for a limit out of range (checked at start)
 */
export function responseLimits(limits: Partial<ResponseLimits> = {}): ResponseLimits {
  const maxBytes = limits.maxBytes ?? MAX_RESPONSE_BYTES;
  const maxBytesPerRun = limits.maxBytesPerRun ?? MAX_RESPONSE_BYTES_PER_RUN;
  checkLimit("maxResponseBytes", maxBytes, MAX_RESPONSE_BYTES_CEILING);
  checkLimit("maxResponseBytesPerRun", maxBytesPerRun, MAX_RESPONSE_BYTES_PER_RUN_CEILING);
  return { maxBytes, maxBytesPerRun };
}

function checkLimit(name: string, value: number, ceiling: number): void {
  if (!Number.isInteger(value) || value < 1 || value > ceiling)
    throw new CodeModeError(
      "invalid_option",
      `${name} must be a whole number of bytes from 1 to ${ceiling}; got ${String(value)}.`,
    );
}

/**
 * The reading of one run's response bodies (see the file header).
 * @param limits - per body and per run (defaults: {@link MAX_RESPONSE_BYTES},
 *   {@link MAX_RESPONSE_BYTES_PER_RUN})
 */
export function responseBudget(limits: Partial<ResponseLimits> = {}): ResponseBudget {
  const checked = Object.freeze(responseLimits(limits));
  let read = 0;
  const budget: ResponseBudget = {
    limits: checked,
    get read() {
      return read;
    },
    async readBody(response, signal) {
      signal?.throwIfAborted();
      const stream = response.body;
      if (stream === null) return new Uint8Array(0);
      // A declared length past a limit is refused before a byte is read: the upstream is not
      // asked for what would be thrown away. The stream is still counted: a length is a claim.
      const declared = declaredLength(response.headers.get("content-length"));
      const early =
        declared === undefined ? undefined : overResponseLimit(0, read, declared, checked);
      if (early) {
        await stream.cancel().catch(() => undefined);
        throw limitError(early, checked, read);
      }
      // Chunks kept as they come and joined once at the end: a buffer of a declared length made
      // up front would be memory no byte has been charged for (a run may start 1,000 requests).
      let chunks: Uint8Array[] = [];
      let size = 0;
      const { reader, next } = chunkReader(
        stream,
        // What is left of both limits and one byte past it (which tells a body past a limit):
        // a window is never larger than what the run's budget has room for.
        () => Math.min(checked.maxBytes - size, checked.maxBytesPerRun - read) + 1,
        declared,
      );
      const stop = () => void reader.cancel(signal?.reason).catch(() => undefined);
      signal?.addEventListener("abort", stop, { once: true });
      try {
        for (;;) {
          const { done, value } = await next();
          signal?.throwIfAborted();
          if (done) break;
          const chunk = asBytes(value);
          const hit = overResponseLimit(size, read, chunk.byteLength, checked);
          if (hit) {
            // Charged as read, up to the run's limit: the host did receive them.
            read += Math.max(0, Math.min(chunk.byteLength, checked.maxBytesPerRun - read));
            chunks = [];
            await reader.cancel().catch(() => undefined);
            throw limitError(hit, checked, read);
          }
          read += chunk.byteLength;
          chunks.push(chunk);
          size += chunk.byteLength;
        }
      } finally {
        signal?.removeEventListener("abort", stop);
      }
      return joined(chunks, size);
    },
  };
  return budget;
}

/**
 * Bytes a window of a byte stream's reader holds at most: 64 KiB. workerd hands a fetched body
 * over in chunks of ~4 KiB; read one at a time (a promise and a hop into the runtime each), a
 * 4 MiB body took ~1,050 reads and the host's CPU per MiB read grew by a fifth over
 * `arrayBuffer()` (bench/README.md, "API answers read within limits"). Filled a window at a time
 * (`readAtLeast`), 64 reads.
 */
export const READ_WINDOW = 65_536;

/** The first window of a body that declares no length: 4 KiB, most API answers whole. */
export const FIRST_WINDOW = 4_096;

/**
 * How a body is read: a window at a time where the stream is a byte stream (workerd's fetched
 * bodies; `readAtLeast` where the runtime has it), else chunk by chunk as its source gives them.
 * Windows grow with the body: the first holds its declared length and one byte (which tells
 * its end), or {@link FIRST_WINDOW} when none is declared; each later one what was read so far,
 * up to {@link READ_WINDOW}. A small answer, the common case, then costs one small window,
 * not 64 KiB made and zeroed (a 512-byte body took ~8 µs more than `arrayBuffer()` in Node).
 * @param stream - the body
 * @param room - bytes a window may hold now (at least 1)
 * @param declared - the body's declared length, if any (a hint: never trusted as its end)
 */
export function chunkReader(
  stream: ReadableStream<Uint8Array>,
  room: () => number,
  declared?: number,
): {
  reader: { cancel(reason?: unknown): Promise<void> };
  next: () => Promise<{ done: boolean; value?: unknown }>;
} {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // not a byte stream (one a callback built from a plain source): its own chunks
  }
  if (byob === undefined) {
    const plain = stream.getReader();
    return { reader: plain, next: () => plain.read() };
  }
  const reader = byob;
  // workerd's extension; Node's byte streams have only `read`, which fills a window in part.
  const atLeast = typeof (reader as Partial<ReadableStreamBYOBReader>).readAtLeast === "function";
  let got = 0;
  return {
    reader,
    next: async () => {
      const wanted = got > 0 ? got : declared !== undefined ? declared + 1 : FIRST_WINDOW;
      const size = Math.max(1, Math.min(READ_WINDOW, room(), wanted));
      const view = new Uint8Array(size);
      const result = atLeast ? await reader.readAtLeast(size, view) : await reader.read(view);
      const value = result.value as Uint8Array | undefined;
      got += value?.byteLength ?? 0;
      // A window filled less than half (the last one; every one where there is no
      // `readAtLeast`) keeps a copy of its bytes, not the whole window.
      if (value !== undefined && value.byteLength * 2 < value.buffer.byteLength)
        return { done: result.done, value: value.slice() };
      return result;
    },
  };
}

/** A `content-length` as a whole number, or undefined when absent or not one. */
function declaredLength(header: string | null): number | undefined {
  if (header === null || !/^\s*\d+\s*$/.test(header)) return undefined;
  const n = Number(header);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A stream's chunk as bytes (a byte stream's chunks are; a hand-made one's may be text). */
function asBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value))
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return new TextEncoder().encode(String(value));
}

function joined(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * The program's error for a body past a limit: which limit, its setting, and what to do.
 * @param hit - which limit
 * @param limits - the limits
 * @param read - bytes the run has read so far
 */
export function limitError(
  hit: "body" | "run",
  limits: ResponseLimits,
  read: number,
): SandboxError {
  return new SandboxError(
    "LimitError",
    hit === "body"
      ? `codemode.request(): the API's answer is larger than the ${limits.maxBytes} bytes the host reads of one response body (maxResponseBytes, MAX_RESPONSE_BYTES), so it was not read further and none of it is returned. Ask for less per request: a page at a time (the operation's page or limit parameters), fewer fields, or a narrower filter.`
      : `codemode.request(): this run has read ${read} bytes of API answers, and this answer would take it past the ${limits.maxBytesPerRun} bytes the host reads per run (maxResponseBytesPerRun, MAX_RESPONSE_BYTES_PER_RUN), so it was not read further and none of it is returned. Ask for less per request (smaller pages, fewer fields), or read the rest in another run.`,
  );
}
