// Hostile (issue #40): the host read every API response body whole (`arrayBuffer()`), whatever
// its size, so a program that asked an API (or an echo, or an upstream that streams) for a huge
// or endless body made the host hold all of it, then redact it. Now a body is read chunk by
// chunk within a limit per body and per run; past either the stream is cancelled and the program
// gets a LimitError, never part of the body. Streams here are counted (pulls, cancel), never
// timed; an endless one errors after a bound of pulls so a regression fails instead of hanging.
// Before the fix: the apiRequester tests below got the whole body (or the runaway guard's error).
import { describe, expect, it } from "vitest";
import { apiRequester } from "../../../../src/codemode/api-requester";
import { toApiResult } from "../../../../src/codemode/request/api-response";
import {
  chunkReader,
  FIRST_WINDOW,
  MAX_RESPONSE_BYTES,
  READ_WINDOW,
  MAX_RESPONSE_BYTES_PER_RUN,
  overResponseLimit,
  responseBudget,
  responseLimits,
} from "../../../../src/codemode/request/response-budget";
import { CodeModeError, SandboxError } from "../../../../src/errors";
import { loadSpec } from "../../../../src/openapi/openapi-spec";

const KIB = 1_024;

/** A stream of `chunks` chunks of `size` bytes (or endless), counting pulls and cancels. */
function countedStream(size: number, chunks = Number.POSITIVE_INFINITY) {
  const seen = { pulls: 0, cancelled: false };
  // The runaway guard: an endless stream read whole would never end (nor free its memory).
  const guard = 2_000;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.pulls++;
      if (seen.pulls > guard) {
        controller.error(new Error("runaway: the reader never stopped"));
        return;
      }
      if (seen.pulls > chunks) {
        controller.close();
        return;
      }
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

/** A byte stream (what workerd's fetched bodies are) of `chunk`-byte pieces, endless. */
function byteStream(chunk: number) {
  const seen = { pulls: 0, cancelled: false };
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (++seen.pulls > 2_000) controller.error(new Error("runaway: the reader never stopped"));
      else controller.enqueue(new Uint8Array(chunk).fill(0x62));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

describe("chunkReader", () => {
  it("reads a byte stream a window at a time, never past the room it is given", async () => {
    const { stream } = byteStream(4 * KIB);
    let room = 10 * KIB;
    const { next } = chunkReader(stream as ReadableStream<Uint8Array>, () => room);
    const first = (await next()).value as Uint8Array;
    expect(first.byteLength).toBeGreaterThan(0);
    expect(first.byteLength).toBeLessThanOrEqual(10 * KIB);
    room = 1;
    expect(((await next()).value as Uint8Array).byteLength).toBe(1);
    room = 10 * READ_WINDOW;
    expect(((await next()).value as Uint8Array).byteLength).toBeLessThanOrEqual(READ_WINDOW);
  });

  it("grows its windows with the body: small first, then what was read so far", async () => {
    const { stream } = byteStream(64 * KIB);
    const { next } = chunkReader(stream as ReadableStream<Uint8Array>, () => 10 * READ_WINDOW);
    const sizes: number[] = [];
    for (let i = 0; i < 6; i++) sizes.push(((await next()).value as Uint8Array).byteLength);
    expect(sizes[0]).toBeLessThanOrEqual(FIRST_WINDOW);
    let total = 0;
    for (const size of sizes) {
      expect(size).toBeLessThanOrEqual(Math.min(READ_WINDOW, Math.max(total, FIRST_WINDOW)));
      total += size;
    }
    // A declared length sizes the first window: the body and one byte, which tells its end.
    const declared = byteStream(64 * KIB);
    const hinted = chunkReader(
      declared.stream as ReadableStream<Uint8Array>,
      () => READ_WINDOW,
      100,
    );
    expect(((await hinted.next()).value as Uint8Array).byteLength).toBeLessThanOrEqual(101);
  });

  it("keeps a copy of a window filled less than half, not the window", async () => {
    const { stream } = byteStream(KIB);
    const { next } = chunkReader(stream as ReadableStream<Uint8Array>, () => READ_WINDOW);
    const value = (await next()).value as Uint8Array;
    // Node's byte streams fill a window with what is there (one 1 KiB piece); workerd waits for
    // the whole window (readAtLeast). Either way no small piece holds a 64 KiB buffer.
    expect(value.buffer.byteLength).toBeLessThanOrEqual(Math.max(value.byteLength * 2, KIB));
  });

  it("reads a stream that is not a byte stream by its own chunks", async () => {
    const { stream } = countedStream(3 * KIB, 1);
    const { next } = chunkReader(stream, () => 1);
    expect(((await next()).value as Uint8Array).byteLength).toBe(3 * KIB);
    expect((await next()).done).toBe(true);
  });
});

describe("overResponseLimit", () => {
  const limits = { maxBytes: 100, maxBytesPerRun: 250 };
  it("allows a body up to exactly its limit, and the run up to exactly its own", () => {
    expect(overResponseLimit(60, 60, 40, limits)).toBeUndefined();
    expect(overResponseLimit(0, 150, 100, limits)).toBeUndefined();
  });
  it("names the body's limit first, then the run's", () => {
    expect(overResponseLimit(60, 60, 41, limits)).toBe("body");
    expect(overResponseLimit(0, 240, 200, limits)).toBe("body");
    expect(overResponseLimit(0, 240, 11, limits)).toBe("run");
  });
});

describe("responseLimits", () => {
  it("defaults to 16 MiB a body and 64 MiB a run", () => {
    expect(responseLimits()).toEqual({
      maxBytes: MAX_RESPONSE_BYTES,
      maxBytesPerRun: MAX_RESPONSE_BYTES_PER_RUN,
    });
    expect(MAX_RESPONSE_BYTES).toBe(16 * 1_048_576);
    expect(MAX_RESPONSE_BYTES_PER_RUN).toBe(64 * 1_048_576);
  });
  it("refuses a limit out of range at start", () => {
    for (const bad of [0, -1, 1.5, 33 * 1_048_576, Number.NaN])
      expect(() => responseLimits({ maxBytes: bad })).toThrow(CodeModeError);
    expect(() => responseLimits({ maxBytesPerRun: 2 ** 31 })).toThrow(/maxResponseBytesPerRun/);
  });
});

describe("responseBudget.readBody", () => {
  it("reads a body within the limits whole, in every chunk, and charges the run", async () => {
    const { stream } = countedStream(10 * KIB, 5);
    const budget = responseBudget({ maxBytes: 50 * KIB });
    const bytes = await budget.readBody(new Response(stream));
    expect(bytes.byteLength).toBe(50 * KIB);
    expect(bytes.every((b) => b === 0x61)).toBe(true);
    expect(budget.read).toBe(50 * KIB);
  });

  it("cancels an endless body past its limit and throws a LimitError naming it", async () => {
    const { stream, seen } = countedStream(16 * KIB);
    const budget = responseBudget({ maxBytes: 100 * KIB });
    const error = await budget.readBody(new Response(stream)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).name).toBe("LimitError");
    expect((error as Error).message).toMatch(/102400 bytes .* one response body/);
    expect((error as Error).message).toMatch(/maxResponseBytes, MAX_RESPONSE_BYTES/);
    expect((error as Error).message).toMatch(/a page at a time/);
    expect(seen.cancelled).toBe(true);
    // Seven chunks make 112 KiB: the seventh is the one past it, and nothing is pulled after
    // the cancel (a stream may pull one ahead).
    expect(seen.pulls).toBeLessThanOrEqual(8);
  });

  it("refuses a declared length past the limit before reading a byte", async () => {
    const { stream, seen } = countedStream(16 * KIB);
    const budget = responseBudget({ maxBytes: 100 * KIB });
    const response = new Response(stream, { headers: { "content-length": String(200 * KIB) } });
    await expect(budget.readBody(response)).rejects.toThrow(/one response body/);
    expect(seen.cancelled).toBe(true);
    expect(budget.read).toBe(0);
  });

  it("still counts the bytes of a body that declared less than it sends", async () => {
    const { stream, seen } = countedStream(16 * KIB);
    const budget = responseBudget({ maxBytes: 100 * KIB });
    const response = new Response(stream, { headers: { "content-length": "10" } });
    await expect(budget.readBody(response)).rejects.toThrow(/one response body/);
    expect(seen.cancelled).toBe(true);
  });

  it("bounds a run's bodies together, each under its own limit", async () => {
    const budget = responseBudget({ maxBytes: 64 * KIB, maxBytesPerRun: 150 * KIB });
    for (let i = 0; i < 2; i++)
      expect((await budget.readBody(new Response(new Uint8Array(64 * KIB)))).byteLength).toBe(
        64 * KIB,
      );
    const { stream, seen } = countedStream(16 * KIB, 4);
    const error = await budget.readBody(new Response(stream)).catch((e: unknown) => e);
    expect((error as Error).name).toBe("LimitError");
    expect((error as Error).message).toMatch(/per run \(maxResponseBytesPerRun/);
    expect((error as Error).message).toMatch(/another run/);
    expect(seen.cancelled).toBe(true);
    // Charged up to the run's limit: the next body is refused by its declared length at once.
    expect(budget.read).toBe(150 * KIB);
    await expect(budget.readBody(new Response(new Uint8Array(1)))).rejects.toThrow(/per run/);
  });

  it("stops reading when the run's signal aborts", async () => {
    const { stream, seen } = countedStream(KIB);
    const controller = new AbortController();
    const budget = responseBudget();
    const reading = budget.readBody(new Response(stream), controller.signal);
    controller.abort(new Error("the run ended"));
    await expect(reading).rejects.toThrow(/the run ended/);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulls).toBeLessThan(2_000);
  });

  it("cancels an endless byte stream at the limit, read a window at a time", async () => {
    const { stream, seen } = byteStream(16 * KIB);
    const budget = responseBudget({ maxBytes: 100 * KIB });
    const error = await budget
      .readBody(new Response(stream as ReadableStream<Uint8Array>))
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("LimitError");
    expect(seen.cancelled).toBe(true);
    expect(seen.pulls).toBeLessThanOrEqual(10);
  });

  it("reads a byte stream within the limit whole", async () => {
    const bytes = new Uint8Array(200 * KIB).map((_, i) => i % 251);
    const budget = responseBudget({ maxBytes: 200 * KIB });
    const read = await budget.readBody(new Response(bytes));
    expect(read).toEqual(bytes);
    expect(budget.read).toBe(200 * KIB);
  });

  it("reads an empty body as no bytes", async () => {
    expect((await responseBudget().readBody(new Response(null))).byteLength).toBe(0);
  });
});

describe("toApiResult with a run's budget", () => {
  it("answers a body past the limit with the LimitError, none of it", async () => {
    const { stream, seen } = countedStream(16 * KIB);
    const budget = responseBudget({ maxBytes: 64 * KIB });
    const response = new Response(stream, { headers: { "content-type": "text/plain" } });
    await expect(toApiResult(response, ["s3cret-token"], undefined, budget)).rejects.toThrow(
      /one response body/,
    );
    expect(seen.cancelled).toBe(true);
  });
});

describe("codemode.request() and a hostile body", () => {
  const spec = loadSpec({
    openapi: "3.0.3",
    info: { title: "blobs", version: "1" },
    paths: { "/blob": { get: { operationId: "blob", responses: { 200: { description: "ok" } } } } },
  });
  const get = { method: "GET", path: "/blob" };
  const signal = new AbortController().signal;

  it("refuses an endless answer past the limit, and the same run still reads a small one", async () => {
    let endless = true;
    const streams: ReturnType<typeof countedStream>[] = [];
    const request = apiRequester({
      spec,
      handler: () => {
        const made = endless ? countedStream(16 * KIB) : countedStream(KIB, 2);
        streams.push(made);
        return new Response(made.stream, { headers: { "content-type": "text/plain" } });
      },
      validate: true,
      secrets: ["s3cret-token-value"],
      mcp: {} as never,
      responseLimits: { maxBytes: 256 * KIB },
    });
    const error = await Promise.resolve()
      .then(() => request(get, signal))
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("LimitError");
    expect((error as Error).message).toMatch(/262144 bytes/);
    expect(streams[0]!.seen.cancelled).toBe(true);
    endless = false;
    const small = (await request(get, signal)) as { body: unknown };
    expect(small.body).toBe("a".repeat(2 * KIB));
  });

  it("bounds the run's bodies together: a flood of concurrent answers", async () => {
    const streams: ReturnType<typeof countedStream>[] = [];
    const request = apiRequester({
      spec,
      handler: () => {
        const made = countedStream(16 * KIB, 8);
        streams.push(made);
        return new Response(made.stream, { headers: { "content-type": "text/plain" } });
      },
      validate: true,
      secrets: [],
      mcp: {} as never,
      responseLimits: { maxBytes: 128 * KIB, maxBytesPerRun: 512 * KIB },
    });
    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, () => Promise.resolve().then(() => request(get, signal))),
    );
    const read = settled.filter((s) => s.status === "fulfilled").length;
    const refused = settled.filter(
      (s) => s.status === "rejected" && (s.reason as Error).name === "LimitError",
    ).length;
    // 20 bodies of 128 KiB against 512 KiB: four whole at most, the rest refused.
    expect(read).toBeLessThanOrEqual(4);
    expect(read + refused).toBe(20);
    // Read at most the run's limit (plus one chunk a body in flight when it was reached).
    const pulled = streams.reduce((sum, s) => sum + Math.min(s.seen.pulls, 8), 0) * 16 * KIB;
    expect(pulled).toBeLessThanOrEqual(512 * KIB + 20 * 2 * 16 * KIB);
  });
});
