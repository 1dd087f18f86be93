/**
 * The front's storage for a body while it arrives (cli/local-server/front/body/collector.mjs):
 * the bytes come out whole and in order, and memory is freed at once, not at V8's next
 * collection: a freed buffer is detached (length 0), a pooled one is left alone (issue #40: the
 * front's memory after 120 uploads).
 */
import { describe, expect, it } from "vitest";
import {
  collectBody,
  freeNow,
  PIECE_BYTES,
} from "../../../../../cli/local-server/front/body/collector.mjs";

/** `n` bytes counting up from `from` (mod 251: no piece boundary lines up with the pattern). */
const bytes = (n: number, from = 0) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (from + i) % 251));

describe("freeNow", () => {
  it("frees a buffer that is its whole ArrayBuffer: every view of it is then empty", () => {
    const buffer = Buffer.allocUnsafeSlow(70_000);
    const view = buffer.subarray(10, 20);
    expect(freeNow(buffer)).toBe(true);
    expect(buffer.length).toBe(0);
    expect(view.length).toBe(0);
    expect(buffer.buffer.byteLength).toBe(0);
  });

  it("leaves a slice and a pooled small buffer alone (others share their memory)", () => {
    const pooled = Buffer.from("small");
    expect(freeNow(pooled)).toBe(false);
    expect(pooled.toString()).toBe("small");
    const whole = Buffer.allocUnsafeSlow(100);
    expect(freeNow(whole.subarray(1))).toBe(false);
    expect(whole.length).toBe(100);
  });
});

describe("collectBody", () => {
  it("gives a declared body back whole, in one buffer of its length", () => {
    const stored = collectBody(300_000);
    const sent = bytes(300_000);
    for (let at = 0; at < sent.length; at += 65_536) stored.add(sent.subarray(at, at + 65_536));
    expect(stored.size()).toBe(300_000);
    expect(Buffer.compare(stored.body(), sent)).toBe(0);
  });

  it("joins a chunked body's pieces once, across piece boundaries, and frees the pieces", () => {
    const stored = collectBody(undefined);
    const sent = bytes(2 * PIECE_BYTES + 12_345, 7);
    // Odd sizes: chunks straddle the pieces' edges.
    for (let at = 0; at < sent.length; at += 40_001) stored.add(sent.subarray(at, at + 40_001));
    const body = stored.body();
    expect(body.length).toBe(sent.length);
    expect(Buffer.compare(body, sent)).toBe(0);
  });

  it("keeps no piece for a small chunked body (a copy of its size)", () => {
    const stored = collectBody(undefined);
    stored.add(Buffer.from('{"jsonrpc":'));
    stored.add(Buffer.from('"2.0"}'));
    const body = stored.body();
    expect(body.toString()).toBe('{"jsonrpc":"2.0"}');
    expect(body.buffer.byteLength).toBeLessThan(PIECE_BYTES);
  });

  it("frees everything of a refused body at once, declared or chunked", () => {
    const declared = collectBody(4 * 1_048_576);
    declared.add(bytes(100_000));
    const kept = declared.body();
    declared.discard();
    expect(kept.length).toBe(0);
    const chunked = collectBody(undefined);
    chunked.add(bytes(PIECE_BYTES + 1));
    // Its two pieces (the collector's own) are freed now, not at a collection.
    const before = process.memoryUsage().arrayBuffers;
    chunked.discard();
    expect(process.memoryUsage().arrayBuffers).toBeLessThanOrEqual(before - 2 * PIECE_BYTES);
  });
});
