/**
 * The first host's wait for the engine (cli/local-server/runners/first-warmth.mjs): the read of
 * the host's code and the teaching of it share one bound, so a host whose answer never ends (or
 * ends late) cannot hold the server's readiness past it. Fake clock.
 */
import { describe, expect, it } from "vitest";
import { warmFirstHost } from "../../../../cli/local-server/runners/first-warmth.mjs";
import { fakeClock } from "./fake-clock";

const STABLE = { hash: "d".repeat(64), code: Buffer.from("{}") };

describe("the first host's wait for the engine", () => {
  it("is ready at the bound when the host's code never comes", async () => {
    const clock = fakeClock();
    let done = false;
    void warmFirstHost({
      read: () => new Promise(() => {}),
      poolUp: Promise.resolve(true),
      teach: async () => {},
      clock,
      boundMs: 8_000,
    }).then(() => (done = true));
    await clock.advance(7_999);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(done).toBe(true);
  });

  it("gives the teaching only what the read left of the bound", async () => {
    const clock = fakeClock();
    let done = false;
    const taught: number[] = [];
    let answer: (value: typeof STABLE) => void = () => {};
    void warmFirstHost({
      read: () => new Promise((resolve) => (answer = resolve)),
      poolUp: Promise.resolve(true),
      teach: async (_hash, _code, boundMs) => {
        taught.push(boundMs);
        await new Promise(() => {});
      },
      clock,
      boundMs: 8_000,
    }).then(() => (done = true));
    await clock.advance(6_000);
    answer(STABLE);
    await clock.advance(0);
    expect(taught).toEqual([2_000]);
    await clock.advance(2_000);
    expect(done).toBe(true);
  });

  it("resolves as soon as the runners loaded it, and teaches nothing without code or pool", async () => {
    const clock = fakeClock();
    const taught: string[] = [];
    const teach = async (hash: string) => void taught.push(hash);
    await warmFirstHost({
      read: async () => STABLE,
      poolUp: Promise.resolve(true),
      teach,
      clock,
      boundMs: 8_000,
    });
    await warmFirstHost({
      read: async () => null,
      poolUp: Promise.resolve(true),
      teach,
      clock,
      boundMs: 8_000,
    });
    await warmFirstHost({
      read: async () => STABLE,
      poolUp: Promise.resolve(false),
      teach,
      clock,
      boundMs: 8_000,
    });
    expect(taught).toEqual([STABLE.hash]);
    expect(clock.now()).toBe(0);
  });
});
