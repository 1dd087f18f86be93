// Resumable streams under faults: dropped connections, replays and retries with a real SDK v1 client.
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectClient, noStandaloneStream, text, type FetchLike } from "./helpers";

const STEPS = 12;
const DELAY_MS = 4;
const DISCONNECTS = 100;
/** A drop is only injected while at least this many progress steps remain (the tool still runs). */
const MARGIN = 3;

/** Small seeded PRNG (mulberry32) so a failing run can be replayed with its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A fetch whose SSE responses are cut at random frame boundaries while a tool is still
 * running: the frame in flight is lost, the connection fails as a network error would, and
 * the client must resume with Last-Event-ID.
 */
function flakyFetch(inner: FetchLike, next: () => number, budget: { left: number }): FetchLike {
  return async (url, init) => {
    const response = await inner(url, init);
    const type = response.headers.get("content-type") ?? "";
    if (response.body === null || !type.includes("text/event-stream")) return response;
    const upstream = response.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let buffer = "";
    let deliveredId = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          const end = buffer.indexOf("\n\n");
          if (end !== -1) {
            const frame = buffer.slice(0, end + 2);
            buffer = buffer.slice(end + 2);
            // The SDK v1 client (1.32.2) forgets its resumption token when a resumed stream
            // fails before delivering an event id, so cut only after one was delivered.
            if (deliveredId && shouldDrop(frame)) {
              budget.left -= 1;
              // The server sees the connection die at once; the client a moment later, after
              // it has read what was delivered before (erroring a stream discards its queue).
              await upstream.cancel();
              await new Promise((resolve) => setTimeout(resolve, 5));
              controller.error(new TypeError("injected network failure"));
              return;
            }
            if (/^id: /m.test(frame)) deliveredId = true;
            controller.enqueue(encoder.encode(frame));
            return;
          }
          const { done, value } = await upstream.read();
          if (done) {
            controller.close();
            return;
          }
          buffer += decoder.decode(value, { stream: true });
        }
      },
      cancel: (reason) => upstream.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };

  function shouldDrop(frame: string): boolean {
    if (budget.left <= 0) return false;
    const data = /^data: (.+)$/m.exec(frame)?.[1];
    if (data === undefined) return false;
    const message = JSON.parse(data) as { method?: string; params?: { progress?: number } };
    if (message.method !== "notifications/progress") return false;
    if ((message.params?.progress ?? STEPS) > STEPS - MARGIN) return false;
    return next() < 0.3;
  }
}

describe("resumability under faults", () => {
  it(`${DISCONNECTS} random mid-stream disconnects: every event exactly once, every result`, async () => {
    const seed = Date.now() % 1_000_000;
    const budget = { left: DISCONNECTS };
    const fetch = flakyFetch(noStandaloneStream, random(seed), budget);
    const { client, transport } = await connectClient("/slow", { fetch });
    const failures: string[] = [];
    // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK transport has only this callback
    transport.onerror = (error) => {
      if (!error.message.includes("injected network failure")) failures.push(error.message);
    };

    let nextId = 0;
    const runCall = async () => {
      const id = nextId++;
      const progress: number[] = [];
      const result = await client.callTool(
        { name: "long", arguments: { id, steps: STEPS, delayMs: DELAY_MS } },
        CallToolResultSchema,
        { onprogress: (event) => progress.push(event.progress), timeout: 15_000 },
      );
      return { id, progress, text: text(result) };
    };

    const outcomes: Awaited<ReturnType<typeof runCall>>[] = [];
    for (let batch = 0; budget.left > 0 && batch < 100; batch++) {
      outcomes.push(...(await Promise.all([runCall(), runCall(), runCall(), runCall()])));
    }

    expect(budget.left, `seed ${seed}; client errors: ${failures.join(" | ")}`).toBe(0);
    const expected = Array.from({ length: STEPS }, (_, index) => index + 1);
    for (const outcome of outcomes) {
      expect(outcome.progress, `seed ${seed}, call ${outcome.id}`).toEqual(expected);
      expect(outcome.text, `seed ${seed}`).toBe(`done ${outcome.id}`);
    }
    await client.close();
  });
});
