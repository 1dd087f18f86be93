/**
 * What a test's runner pool (cli/local-server/runners/runner-pool.mjs) is given, with fakes that
 * record what the pool did: every test builds its pool from these options and overrides only
 * what its decision needs (a launch that fails or takes time, a prepared replacement, code to
 * warm with, resident sizes).
 */
import type { fakeClock } from "./fake-clock";

type FakeClock = ReturnType<typeof fakeClock>;
import { fakeRuntime, type FakeRuntime } from "./fake-runtime";

/** The pool's options with recording fakes, and what they recorded. */
export interface FakePoolParts {
  /** `createRunnerPool` options: spread them, then override. */
  options: {
    clock: FakeClock;
    label: string;
    log: (line: string) => void;
    fail: (code: number) => void;
    addressOf: (index: number) => string;
    doorbell: (slot: any, onRing: () => void) => Promise<() => Promise<void>>;
    launch: (slot: any) => Promise<any>;
    watch: (runtime: any, onStuck: (reason: string) => void) => void;
    askToRetire: (runtime: any) => Promise<boolean>;
    counts: (runtime: any) => Promise<FakeRuntime["counts"] | null>;
  };
  /** Each slot's open doorbell: its ring (what a host connection there does). */
  doorbells: Map<number, () => void>;
  /** The pool's log lines. */
  lines: string[];
  /** The exit codes it stopped the server with. */
  failed: number[];
  /** The runners the default launch started, in order. */
  launched: FakeRuntime[];
  /** Each watched runner's watchdog call: calling it is the watchdog finding it stuck. */
  stuck: Map<FakeRuntime, (reason: string) => void>;
}

/**
 * Options for a pool of fake runners on `clock`: launches start at once, a runner asked to
 * retire agrees and reports retiring, counts are what each fake answers (null when it answers
 * no probe).
 * @param clock - the test's fake clock
 */
export function fakePoolParts(clock: FakeClock): FakePoolParts {
  const doorbells = new Map<number, () => void>();
  const lines: string[] = [];
  const failed: number[] = [];
  const launched: FakeRuntime[] = [];
  const stuck = new Map<FakeRuntime, (reason: string) => void>();
  return {
    doorbells,
    lines,
    failed,
    launched,
    stuck,
    options: {
      clock,
      label: "test",
      log: (line) => lines.push(line),
      fail: (code) => failed.push(code),
      addressOf: (index) => `unix:/private/runner-${index}.sock:0`,
      doorbell: async (slot, onRing) => {
        doorbells.set(slot.index, onRing);
        return async () => void doorbells.delete(slot.index);
      },
      launch: async (slot) => {
        const runtime = fakeRuntime(`runner ${slot.index}`);
        launched.push(runtime);
        return runtime;
      },
      watch: (runtime, onStuck) => stuck.set(runtime, onStuck),
      askToRetire: async (runtime) => {
        runtime.counts.retiring = true;
        return true;
      },
      counts: async (runtime) => (runtime.answers ? { ...runtime.counts } : null),
    },
  };
}
