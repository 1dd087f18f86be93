/**
 * A runtime as the supervisor's parts see it (cli/local-server/runtime.mjs's `Runtime`), with
 * what a test makes it do: exit, and answer probes with counts or not at all.
 */
import type { IncomingHttpHeaders } from "node:http";

/** A fake runtime and its controls. */
export interface FakeRuntime {
  name: string;
  socket: string;
  pid: number;
  exited: Promise<void>;
  ready: Promise<boolean>;
  isRunning: () => boolean;
  recentOutput: () => string[];
  showOutput: (to: ((line: string) => void) | null) => void;
  kill: (reason: string) => Promise<void>;
  killedBecause: string | undefined;
  endedBecause: string | undefined;
  lastAnswer: number;
  lastHeaders: IncomingHttpHeaders | undefined;
  /** Ends it as if its process died. */
  exit: (reason?: string) => void;
  /** Whether it answers probes, and the counts it answers with (a runner's). */
  answers: boolean;
  counts: { begun: number; underWay: number; retiring: boolean };
}

let pids = 1000;

/** A running fake runtime named `name`. */
export function fakeRuntime(name: string): FakeRuntime {
  let running = true;
  let settleExit: () => void = () => {};
  const exited = new Promise<void>((resolve) => (settleExit = resolve));
  const runtime: FakeRuntime = {
    name,
    socket: `/tmp/cmm-fake/r${pids}.entry.sock`,
    pid: pids++,
    exited,
    ready: Promise.resolve(true),
    isRunning: () => running,
    recentOutput: () => [],
    showOutput: () => {},
    killedBecause: undefined,
    endedBecause: undefined,
    lastAnswer: 0,
    lastHeaders: undefined,
    answers: true,
    counts: { begun: 0, underWay: 0, retiring: false },
    exit: (reason = "it exited") => {
      if (!running) return;
      running = false;
      runtime.endedBecause = reason;
      settleExit();
    },
    kill: async (reason) => {
      runtime.killedBecause ??= reason;
      runtime.exit(reason);
    },
  };
  return runtime;
}

/** The `/health` headers a runner with these counts answers (runner-life.ts names them). */
export function countHeaders(counts: FakeRuntime["counts"]): IncomingHttpHeaders {
  return {
    "x-runs-begun": String(counts.begun),
    "x-runs-under-way": String(counts.underWay),
    ...(counts.retiring ? { "x-runner-retiring": "1" } : {}),
  };
}
