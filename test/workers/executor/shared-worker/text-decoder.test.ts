/**
 * The shared worker's `TextDecoder` (sandbox/engine/polyfills.ts) hands a program's view to the
 * runner's native UTF-8 decoder as buffer, offset and length, read from the program's object. A
 * view that lies about its `byteLength` or `byteOffset` must read nothing beyond its buffer: the
 * runner takes a copy of the engine's buffer (quickjs-emscripten's `getArrayBuffer`) and clamps
 * offset and length to it (`decodeUtf8` in sandbox/engine/values.ts). Pinned here (#29), so a
 * change to either (an engine upgrade, a zero-copy view) that lets a lie through turns this red.
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";

const executor = new SharedWorkerExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

// Other memory filled with "Z" around the small buffer: none of it may come back.
const PROGRAM = `async () => {
  const before = new Uint8Array(200000).fill(90);
  const buffer = new ArrayBuffer(8);
  new Uint8Array(buffer).set([104, 101, 108, 108, 111, 33, 33, 33]);
  const after = new Uint8Array(200000).fill(90);
  const lie = (view, props) => { for (const [k, v] of Object.entries(props)) Object.defineProperty(view, k, { value: v }); return view; };
  const out = [];
  const tries = [
    () => lie(new Uint8Array(buffer), { byteLength: 10000000 }),
    () => lie(new Uint8Array(buffer), { byteLength: 100000, byteOffset: -50000 }),
    () => lie(new Uint8Array(buffer, 4), { byteLength: 50000, byteOffset: 4 }),
    () => lie(new DataView(buffer), { byteLength: 1 << 30 }),
    () => ({ buffer, byteOffset: 0, byteLength: 1 << 20 }),
    () => lie(new Uint8Array(buffer), { buffer: before.buffer, byteLength: 300000 }),
  ];
  for (const make of tries) {
    try { out.push(new TextDecoder().decode(make())); } catch (e) { out.push("threw " + e.name); }
  }
  return { out, sizes: [before.length, after.length] };
}`;

it("a view lying about its length or offset reads nothing beyond its buffer", async () => {
  const outcome = await executor.execute({ code: PROGRAM, namespaces: {} });
  expect(outcome.error).toBeUndefined();
  const { out } = outcome.result as { out: string[] };
  expect(out).toHaveLength(6);
  // Clamped to the 8 bytes of the buffer (or to what follows a real offset of 4).
  expect(out.slice(0, 4)).toEqual(["hello!!!", "hello!!!", "o!!!", "hello!!!"]);
  // Not a view at all: refused, nothing read.
  expect(out[4]).toMatch(/^threw /);
  // A view whose `buffer` is another buffer reads that buffer, within its own bounds: the
  // program's own memory, never more than that buffer holds.
  expect(out[5]!.length).toBeLessThanOrEqual(200_000);
});
