/**
 * A clock the test moves (cli/local-server/clock.mjs's shape): `sleep` waits until `advance`
 * passes its time, in order, with the promises that each wake-up sets off settled before the
 * next timer fires. Minutes of supervisor time run in milliseconds.
 */

interface Timer {
  at: number;
  order: number;
  resolve: () => void;
}

/** Settles the microtasks and immediate callbacks queued so far, a few rounds deep. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The fake clock: `now`, `sleep`, and `advance` for the test. */
export function fakeClock() {
  let now = 0;
  let order = 0;
  const timers: Timer[] = [];
  return {
    now: () => now,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => timers.push({ at: now + ms, order: order++, resolve })),
    /** Moves time forward by `ms`, firing every timer due on the way. */
    async advance(ms: number): Promise<void> {
      const end = now + ms;
      for (;;) {
        await settle();
        timers.sort((a, b) => a.at - b.at || a.order - b.order);
        const next = timers[0];
        if (!next || next.at > end) break;
        timers.shift();
        now = Math.max(now, next.at);
        next.resolve();
      }
      now = end;
      await settle();
    },
  };
}
