/**
 * The engine's WebAssembly memory, made here so that it grows only as far as the runs under way
 * in it may hold: what the runs' limits allow together (twice each, for the allocator's free
 * pieces), and a fixed room for the engine and its template. Past that, a growth is refused:
 * the engine's allocation fails and QuickJS throws its "out of memory" error in the run that
 * asked, and every run looks at what it holds at its next step check
 * ({@link MemoryGate.refusals}), so the run past its limit is stopped.
 *
 * Why: a run's memory look (run.ts) walks what the engine counts, after work it has been told
 * about. One step makes a rope (`big + n`) and a second one flat (`s.charCodeAt(0)`), a copy of
 * `big` that no built-in charge sees: a 32 MiB run kept 126 flat copies of a 16 MiB string in a
 * few hundred steps, before any step check, and grew the engine to its most (2 GiB), where every
 * other run in it ran out of memory and from where the memory never shrinks.
 *
 * The emscripten loader grows the memory through its `grow` method inside a `try` and takes a
 * throw as "no room" (malloc answers null); the method is replaced on this one object only.
 */

/** Bytes per WebAssembly page. */
const PAGE_BYTES = 65_536;

/** The engine's first memory: emscripten's default `INITIAL_MEMORY` for this build (16 MiB). */
const INITIAL_BYTES = 16 * 1_048_576;

/** The most the WebAssembly build lets its memory grow to (2 GiB). */
const MAXIMUM_BYTES = 2_147_483_648;

/** Room the engine always has: its template, the harness, the allocator's own pieces. */
export const ENGINE_ROOM_BYTES = 64 * 1_048_576;

/** Where the engine's memory may grow to, run by run. */
export class MemoryGate {
  /** The memory to give the engine (`newVariant(variant, { wasmMemory })`). */
  readonly memory: WebAssembly.Memory;
  /** Growths refused so far: a run that saw fewer looks at what it holds. */
  refusals = 0;
  /**
   * Growths refused while one run alone was under way: that run asked for them, so a run that
   * saw fewer since it began holds past its share and is stopped. Counted apart from
   * {@link refusals} because the instance outlives its runs: a run charged with every refusal
   * since the instance began (or since its last look, when another run was refused meanwhile
   * and ended) was stopped as over its limit while holding nothing.
   */
  aloneRefusals = 0;
  /** Bytes the runs under way may hold together. */
  private allowed = 0;
  /** Runs under way (their {@link hold} not yet released). */
  private runs = 0;

  constructor() {
    const memory = new WebAssembly.Memory({
      initial: INITIAL_BYTES / PAGE_BYTES,
      maximum: MAXIMUM_BYTES / PAGE_BYTES,
    });
    const grow = WebAssembly.Memory.prototype.grow;
    Object.defineProperty(memory, "grow", {
      value: (pages: number): number => {
        if (memory.buffer.byteLength + pages * PAGE_BYTES > this.mostBytes) {
          this.refusals++;
          if (this.runs === 1) this.aloneRefusals++;
          // Caught by the emscripten loader's growth, which then answers "no room".
          throw new RangeError("The engine's memory may not grow past its runs' limits.");
        }
        return grow.call(memory, pages);
      },
    });
    this.memory = memory;
  }

  /** The most bytes the memory may hold now. */
  get mostBytes(): number {
    return Math.min(MAXIMUM_BYTES, ENGINE_ROOM_BYTES + 2 * this.allowed);
  }

  /**
   * A run with limit `bytes` is under way until the returned function is called (once).
   * @param bytes - the run's `memoryBytes`
   */
  hold(bytes: number): () => void {
    this.allowed += bytes;
    this.runs++;
    let held = true;
    return () => {
      if (held) {
        this.allowed -= bytes;
        this.runs--;
      }
      held = false;
    };
  }
}
