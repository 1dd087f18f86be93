/**
 * The host pair's decisions (cli/local-server/host-pair.mjs), with fake runtimes and a fake
 * clock: a request that comes while the first host starts waits for it and is never told the
 * server is stopping; the standby takes over a host that exits or is stuck; with no standby a
 * new host is started, and with none at all the server stops. Without a warm standby (the
 * launcher's default) nothing starts beside the active host; a replaced host's place is taken by
 * a host started then, and requests meanwhile wait for it, bounded like the first start.
 */
import { describe, expect, it } from "vitest";
import {
  START_WAIT_MS,
  STARTING,
  createHostPair,
} from "../../../../cli/local-server/host-pair.mjs";
import { fakeClock, settle } from "./fake-clock";
import { fakeRuntime, type FakeRuntime } from "./fake-runtime";

/** A pair whose launches the test settles one by one. */
function pairWithLaunches(options: { warmStandby?: boolean } = {}) {
  const clock = fakeClock();
  const launches: { resolve: (runtime: FakeRuntime | null) => void; onCrash: (r: any) => void }[] =
    [];
  const lines: string[] = [];
  const cutOff: string[] = [];
  const stuck = new Map<FakeRuntime, (reason: string) => void>();
  const failed: number[] = [];
  const pair = createHostPair({
    ...options,
    clock,
    label: "test",
    log: (line: string) => lines.push(line),
    fail: (code: number) => failed.push(code),
    cutOff: (runtime: any, reason: string) => cutOff.push(`${runtime.name}: ${reason}`),
    serving: () => {},
    watch: (runtime: any, onStuck: (reason: string) => void) => stuck.set(runtime, onStuck),
    launch: (onCrash: (runtime: any) => void) =>
      new Promise<any>((resolve) => launches.push({ resolve, onCrash })),
  });
  return { clock, pair, launches, lines, cutOff, stuck, failed };
}

/** Starts the pair of a {@link pairWithLaunches} set with runtime 1 as its host; gives runtime 1. */
async function startFirst({ pair, launches }: ReturnType<typeof pairWithLaunches>) {
  const starting = pair.start();
  const first = fakeRuntime("runtime 1");
  launches[0]!.resolve(first);
  await starting;
  return first;
}

/** Starts the pair of `set` with runtime 1 as its host and runtime 2 as its standby, started. */
async function startWithStandby(set: ReturnType<typeof pairWithLaunches>) {
  const first = await startFirst(set);
  const standby = fakeRuntime("runtime 2");
  set.launches[1]!.resolve(standby);
  await settle();
  return { first, standby };
}

describe("the host pair", () => {
  it("a request that comes while the first host starts waits for it (never 'stopping')", async () => {
    const { clock, pair, launches } = pairWithLaunches();
    // The front listens before the runners and the host have started: a request comes first.
    let answer: unknown = "pending";
    void pair.target().then((target) => (answer = target));
    await clock.advance(5_000);
    expect(answer).toBe("pending");
    const starting = pair.start();
    await clock.advance(3_000);
    expect(answer).toBe("pending");
    const first = fakeRuntime("runtime 1");
    launches[0]!.resolve(first);
    await clock.advance(100);
    expect(answer).toBe(first);
    expect(await starting).toBe(first);
    // And its standby starts once it serves.
    expect(launches).toHaveLength(2);
  });

  it("a request waits at most START_WAIT_MS for the first host, then hears 'starting'", async () => {
    const { clock, pair } = pairWithLaunches();
    void pair.start();
    let answer: unknown = "pending";
    void pair.target().then((target) => (answer = target));
    await clock.advance(START_WAIT_MS - 1_000);
    expect(answer).toBe("pending");
    await clock.advance(2_000);
    expect(answer).toBe(STARTING);
  });

  it("null (stopping) is the answer only once the pair is stopped", async () => {
    const { clock, pair } = pairWithLaunches();
    let answer: unknown = "pending";
    void pair.target().then((target) => (answer = target));
    await clock.advance(1_000);
    pair.stop();
    await clock.advance(2_000);
    expect(answer).toBeNull();
  });

  it("the standby takes over a host that exits; its requests are cut off; a new standby starts", async () => {
    const set = pairWithLaunches();
    const { clock, pair, launches, cutOff, lines } = set;
    const { first, standby } = await startWithStandby(set);
    first.exit();
    await clock.advance(10);
    expect(pair.active()).toBe(standby);
    expect(cutOff).toEqual(["runtime 1: it exited"]);
    expect(lines.some((l) => l.includes("runtime 2 (workerd pid"))).toBe(true);
    expect(launches).toHaveLength(3);
    // A request during the switch gets the new host.
    expect(await pair.target()).toBe(standby);
  });

  it("a stuck host is replaced, and its kill is what ends it", async () => {
    const set = pairWithLaunches();
    const { clock, pair, launches, stuck } = set;
    const first = await startFirst(set);
    launches[1]!.resolve(fakeRuntime("runtime 2"));
    stuck.get(first)!("it stopped answering (no /health answer for 30 s)");
    await clock.advance(10);
    expect(first.killedBecause).toBe("it stopped answering (no /health answer for 30 s)");
    expect(pair.active()?.name).toBe("runtime 2");
  });

  it("a crash line replaces the active host; a crash of the standby does not", async () => {
    const set = pairWithLaunches();
    const { clock, pair, launches } = set;
    const { first, standby } = await startWithStandby(set);
    launches[1]!.onCrash(standby);
    await clock.advance(10);
    expect(pair.active()).toBe(first);
    launches[0]!.onCrash(first);
    await clock.advance(10);
    expect(pair.active()).toBe(standby);
  });

  it("with no live standby a new host is started; with none at all the server stops", async () => {
    const set = pairWithLaunches();
    const { clock, launches, failed, lines } = set;
    const { first, standby } = await startWithStandby(set);
    // Both die together (their runtime host process died): the dead standby is not promoted.
    standby.exit();
    first.exit();
    await clock.advance(10);
    expect(launches).toHaveLength(3);
    launches[2]!.resolve(null);
    await clock.advance(10);
    expect(launches).toHaveLength(4);
    launches[3]!.resolve(null);
    await clock.advance(10);
    expect(failed).toEqual([1]);
    expect(lines.at(-1)).toContain("no runtime could be started; stopping.");
  });

  it("with no warm standby, nothing starts beside the host; a replacement starts then, requests wait for it, bounded", async () => {
    const set = pairWithLaunches({ warmStandby: false });
    const { clock, pair, launches, cutOff, lines } = set;
    const first = await startFirst(set);
    await clock.advance(60_000);
    expect(launches).toHaveLength(1);
    first.exit();
    await clock.advance(10);
    // The replacement is launched at once; the old host's requests are cut off.
    expect(launches).toHaveLength(2);
    expect(cutOff).toEqual(["runtime 1: it exited"]);
    expect(pair.active()).toBeNull();
    // A request during the start waits for it …
    let answer: unknown = "pending";
    void pair.target().then((target) => (answer = target));
    await clock.advance(4_000);
    expect(answer).toBe("pending");
    const second = fakeRuntime("runtime 2");
    launches[1]!.resolve(second);
    await clock.advance(10);
    expect(answer).toBe(second);
    expect(pair.active()).toBe(second);
    expect(
      lines.some((l) => /runtime 2 .* serves now \(4\d{3} ms after the switch\)/.test(l)),
    ).toBe(true);
    // … and again no standby starts beside the new host.
    await clock.advance(60_000);
    expect(launches).toHaveLength(2);
    // A replacement that takes longer than START_WAIT_MS: the request hears "starting".
    second.exit();
    await clock.advance(10);
    expect(launches).toHaveLength(3);
    let late: unknown = "pending";
    void pair.target().then((target) => (late = target));
    await clock.advance(START_WAIT_MS - 1_000);
    expect(late).toBe("pending");
    await clock.advance(2_000);
    expect(late).toBe(STARTING);
  });
});
