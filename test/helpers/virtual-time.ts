// Virtual time for unit tests whose verdict is about when things happen (a loader that waits,
// looks again, retries): the clock and the timers are vitest's fake ones, and a pump lets fake
// time jump to the next timer whenever the process is otherwise idle. Every wait then lasts
// exactly what its timers say, however loaded the machine is, so "it answered within 450 ms"
// is a fact about the code and not about the machine's load (our rule: never time things in
// unit tests).
import { createHash } from "node:crypto";
import { vi } from "vitest";

/** What {@link startVirtualTime} returns: ends the pump and gives the real timers back. */
export type StopVirtualTime = () => Promise<void>;

/**
 * Fakes `Date` and the timer functions and starts the pump: after each real macrotask turn
 * (every promise chain has settled by then: the code under test waits on nothing but timers),
 * fake time jumps to the next due timer and runs it. `setImmediate` stays real: it is the
 * pump's own turn. `crypto.subtle.digest` (codeHash) is real work on another thread, which
 * would let time jump while a hash is under way: it gives the same bytes here, computed at once.
 * Call the returned function in `afterEach`.
 */
export function startVirtualTime(): StopVirtualTime {
  const digest = vi.spyOn(crypto.subtle, "digest").mockImplementation(async (algorithm, data) => {
    const name = typeof algorithm === "string" ? algorithm : algorithm.name;
    if (name !== "SHA-256") throw new Error(`virtual time: no ${name} digest`);
    const bytes = ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);
    return new Uint8Array(createHash("sha256").update(bytes).digest()).buffer;
  });
  vi.useFakeTimers({
    toFake: ["Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval"],
  });
  let running = true;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const pump = (async () => {
    for (;;) {
      await turn();
      if (!running) return;
      // Nothing pending now but timers: the next one is the next thing that can happen.
      if (vi.getTimerCount() > 0) await vi.advanceTimersToNextTimerAsync();
    }
  })();
  return async () => {
    running = false;
    await pump;
    vi.useRealTimers();
    digest.mockRestore();
  };
}
