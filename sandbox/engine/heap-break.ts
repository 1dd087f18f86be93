/**
 * Where the engine keeps its allocator's break: the end of the heap the allocator has taken so
 * far (emscripten's `sbrk` pointer, a word of the engine's static data). Memory past the break
 * and below the memory's length is room the engine already has: a run takes it by moving the
 * break, without asking the memory to grow, so the gate (memory-gate.ts) sees such a run only
 * through the break. Found the way warm-engine.ts finds the `Math.random` state: the one word of
 * the static data that a block taken from the top of the heap moves by the block's size, each
 * of two times (the allocator gives the top back when the block is freed).
 */
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { engineAllocator, engineMemory } from "./ffi";

/** Bytes at the start of the memory searched (the static data: the word sat at ~86 KB). */
const SCAN_BYTES = 1_048_576;

/** The block taken to move the break (a fresh instance's heap has no free piece this large). */
const PROBE_BYTES = 4 * 1_048_576;

/** What the allocator adds to a block it takes from the top (its header, rounding). */
const PROBE_SLACK = 65_536;

/**
 * The address of the allocator's break in a fresh engine instance (before any run or the
 * template), or undefined when no single word moves as the break does: the gate then sees
 * growth alone.
 * @param quickjs - the engine instance
 */
export function findHeapBreak(quickjs: QuickJSWASMModule): number | undefined {
  const rt = quickjs.newRuntime();
  try {
    const allocator = engineAllocator(rt);
    const words = (): Uint32Array => new Uint32Array(engineMemory(rt).buffer, 0, SCAN_BYTES / 4);
    const moved = (before: Uint32Array, block: number): number[] => {
      const after = words();
      const length = engineMemory(rt).byteLength;
      const found: number[] = [];
      for (let i = 0; i < before.length; i++) {
        const step = after[i]! - before[i]!;
        if (step >= PROBE_BYTES && step <= PROBE_BYTES + PROBE_SLACK && after[i]! <= length)
          found.push(4 * i);
      }
      allocator.free(block);
      return found;
    };
    const take = (): number[] => {
      const before = words().slice();
      const block = allocator.malloc(PROBE_BYTES);
      return block === 0 ? [] : moved(before, block);
    };
    // The allocator's own counts (its top piece, its footprint) move with the first block too;
    // only the break moves again when the block, given back and trimmed, is taken again.
    const first = take();
    const again = take().filter((address) => first.includes(address));
    return again.length === 1 ? again[0] : undefined;
  } catch {
    return undefined;
  } finally {
    rt.dispose();
  }
}
