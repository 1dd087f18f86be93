/**
 * Noticing a kept runner the host stopped using (cli/local-server/runners/unused-runner.mjs,
 * issue #40), one look at a time with the clock's time and the runners' counts given: no false
 * positive on an idle server, on one with a run or two, or on a runner that has runs under way,
 * is retiring or is not a kept one; a positive when a dozen runs begin elsewhere over the window
 * and none on it, named once a window; and the host told to forget, with one line logged.
 */
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import {
  CLUSTER_SECRET_HEADER,
  clusterSecret,
} from "../../../../cli/local-server/cluster-secret.mjs";
import {
  FORGET_RUNNER_PATH,
  FORGOT_COLD_HEADER,
  FORGOT_RUNS_HEADER,
  SUPERVISOR_SECRET_HEADER,
  askHostToForget,
} from "../../../../cli/local-server/runners/host-forget-request.mjs";
import {
  UNUSED_ELSEWHERE_RUNS,
  UNUSED_MS,
  unusedRunnerNotice,
  unusedRunnerWatch,
} from "../../../../cli/local-server/runners/unused-runner.mjs";
import { RunnerLoader } from "../../../../src/executor/runners/runner-loader";
import * as hostSide from "../../../../src/executor/runners/stale-slot";
import { testServers } from "../../../helpers/cli/test-servers.js";
import { countHeaders, fakeRuntime } from "./fake-runtime";

const { listenRuntime } = testServers();

/** The watch's look every 2 s, as the supervisor takes it. */
const LOOK_MS = 2_000;

/** Runner 1 (kept) and runner 2, each with counts the test sets. */
function twoRunners() {
  const kept = { runtime: {}, candidate: true, counts: { begun: 0, underWay: 0, retiring: false } };
  const other = {
    runtime: {},
    candidate: false,
    counts: { begun: 0, underWay: 0, retiring: false },
  };
  return { kept, other, runners: [kept, other] };
}

/**
 * Looks every LOOK_MS from `from` for `ms`, `perLook` runs beginning on runner 2 before each
 * look; the runners named at each look, flattened.
 */
function lookFor(
  watch: ReturnType<typeof unusedRunnerWatch>,
  { kept, other, runners }: ReturnType<typeof twoRunners>,
  from: number,
  ms: number,
  perLook: number,
) {
  const named = [];
  for (let t = from; t <= from + ms; t += LOOK_MS) {
    other.counts.begun += perLook;
    named.push(
      ...watch(runners, t).map((u) => ({ at: t, ...u, kept: u.runtime === kept.runtime })),
    );
  }
  return named;
}

describe("noticing an unused kept runner", () => {
  it("names nothing on an idle server, however long", () => {
    const watch = unusedRunnerWatch();
    expect(lookFor(watch, twoRunners(), 0, 10 * UNUSED_MS, 0)).toEqual([]);
  });

  it("names nothing when only a few runs began elsewhere over the window", () => {
    const watch = unusedRunnerWatch();
    const pool = twoRunners();
    lookFor(watch, pool, 0, 0, 0);
    // A single run, then one fewer than the bound in all over twice the window.
    expect(lookFor(watch, pool, LOOK_MS, 0, 1)).toEqual([]);
    pool.other.counts.begun += UNUSED_ELSEWHERE_RUNS - 2;
    expect(lookFor(watch, pool, 2 * LOOK_MS, 2 * UNUSED_MS, 0)).toEqual([]);
    // The twelfth: named.
    pool.other.counts.begun += 1;
    expect(watch(pool.runners, 3 * UNUSED_MS).map((u) => u.elsewhere)).toEqual([
      UNUSED_ELSEWHERE_RUNS,
    ]);
  });

  it("names a kept runner that began none while a dozen began elsewhere over the window, once a window", () => {
    const watch = unusedRunnerWatch();
    const pool = twoRunners();
    lookFor(watch, pool, 0, 0, 0);
    // One run elsewhere a look: the bound is met long before the window ends.
    const named = lookFor(watch, pool, LOOK_MS, 2 * UNUSED_MS, 1);
    expect(named.map((n) => [n.at, n.kept, n.quietMs])).toEqual([
      [UNUSED_MS, true, UNUSED_MS],
      [2 * UNUSED_MS, true, UNUSED_MS],
    ]);
    expect(named[0]!.elsewhere).toBe(UNUSED_MS / LOOK_MS);
  });

  it("a run begun on it, or one under way, starts its window again", () => {
    const watch = unusedRunnerWatch();
    const pool = twoRunners();
    lookFor(watch, pool, 0, 0, 0);
    expect(lookFor(watch, pool, LOOK_MS, UNUSED_MS - 2 * LOOK_MS, 1)).toEqual([]);
    pool.kept.counts.begun = 1;
    expect(lookFor(watch, pool, UNUSED_MS - LOOK_MS, UNUSED_MS - LOOK_MS, 1)).toEqual([]);
    // A run under way on it (a long one): it is in use, however many begin elsewhere.
    pool.kept.counts.underWay = 1;
    expect(lookFor(watch, pool, UNUSED_MS, 2 * UNUSED_MS, 3)).toEqual([]);
    pool.kept.counts.underWay = 0;
    const named = lookFor(watch, pool, 3 * UNUSED_MS, UNUSED_MS, 1);
    expect(named.map((n) => n.at)).toEqual([4 * UNUSED_MS]);
  });

  it("passes over a runner retiring, not kept or not serving, and one never probed", () => {
    const watch = unusedRunnerWatch();
    const pool = twoRunners();
    pool.kept.counts.retiring = true;
    expect(lookFor(watch, pool, 0, 2 * UNUSED_MS, 2)).toEqual([]);
    pool.kept.counts.retiring = false;
    pool.kept.candidate = false;
    expect(lookFor(watch, pool, 3 * UNUSED_MS, 2 * UNUSED_MS, 2)).toEqual([]);
    const unprobed = { runtime: {}, candidate: true, counts: null };
    const other = pool.other;
    const runners = [unprobed, other];
    for (let t = 0; t <= 2 * UNUSED_MS; t += LOOK_MS) {
      other.counts.begun += 2;
      expect(watch(runners, t)).toEqual([]);
    }
  });

  it("follows a replacement afresh: its predecessor's window is not its own", () => {
    const watch = unusedRunnerWatch();
    const pool = twoRunners();
    lookFor(watch, pool, 0, UNUSED_MS - LOOK_MS, 1);
    pool.kept.runtime = {};
    expect(lookFor(watch, pool, UNUSED_MS, UNUSED_MS - LOOK_MS, 1)).toEqual([]);
    expect(lookFor(watch, pool, 2 * UNUSED_MS, 0, 1).map((n) => n.kept)).toEqual([true]);
  });
});

/** Slot 1 (kept) and slot 2, runners probed with counts the test sets. */
function slots() {
  return [1, 2].map((index) => {
    const runtime = fakeRuntime(`runner ${index}`);
    runtime.lastHeaders = countHeaders(runtime.counts);
    return {
      index,
      runtime,
      retiring: false,
      starting: false,
      restarting: false,
      preparing: false,
    };
  });
}
type Slot = ReturnType<typeof slots>[number];

describe("the pool's notice", () => {
  /** Looks every LOOK_MS for `ms` from `from`, a run beginning on slot 2 before each. */
  async function looks(
    notice: (slots: Slot[], now: number) => Promise<void>,
    pool: Slot[],
    from: number,
    ms: number,
  ) {
    for (let t = from; t <= from + ms; t += LOOK_MS) {
      const other = pool[1]!.runtime;
      other.counts.begun++;
      other.lastHeaders = countHeaders(other.counts);
      await notice(pool, t);
    }
  }

  it("tells the host to forget the unused kept runner's marks and logs what it found", async () => {
    const asked: [number, number][] = [];
    const lines: string[] = [];
    const pool = slots();
    const notice = unusedRunnerNotice({
      kept: (slot: Slot) => slot.index === 1,
      forget: async (slot: Slot, quietMs: number) => {
        asked.push([slot.index, quietMs]);
        return { cold: true, runs: 1 };
      },
      log: (line: string) => lines.push(line),
      label: "npm start",
    });
    await looks(notice, pool, 0, UNUSED_MS);
    expect(asked).toEqual([[1, UNUSED_MS]]);
    expect(lines).toEqual([
      `npm start: runner 1 serves but began no run for 30 s while ${UNUSED_MS / LOOK_MS} began on other runners; the host forgot a mark that it had no runner and 1 run long gone from it, and sends it runs again.`,
    ]);
  });

  it("says so when the host had nothing stale, or did not answer; never asks while retiring", async () => {
    const lines: string[] = [];
    const answers = [{ cold: false, runs: 0 }, null];
    const pool = slots();
    const notice = unusedRunnerNotice({
      kept: (slot: Slot) => slot.index === 1,
      forget: async () => answers.shift() ?? null,
      log: (line: string) => lines.push(line),
      label: "npm start",
    });
    await looks(notice, pool, 0, 2 * UNUSED_MS);
    expect(lines.map((line) => line.split("; ")[1])).toEqual([
      "the host had nothing stale on it (it may keep it free for other callers).",
      "the host was told to forget its marks on it but did not answer.",
    ]);
    pool[0]!.retiring = true;
    await looks(notice, pool, 3 * UNUSED_MS, 2 * UNUSED_MS);
    expect(lines).toHaveLength(2);
  });
});

describe("the host's side of the request", () => {
  it("names the route and headers as the host does", () => {
    expect([
      FORGET_RUNNER_PATH,
      SUPERVISOR_SECRET_HEADER,
      FORGOT_COLD_HEADER,
      FORGOT_RUNS_HEADER,
    ]).toEqual([
      hostSide.FORGET_RUNNER_PATH,
      hostSide.SUPERVISOR_SECRET_HEADER,
      hostSide.FORGOT_COLD_HEADER,
      hostSide.FORGOT_RUNS_HEADER,
    ]);
  });

  it("answers what the host's runner loader forgot, 404 without such a slot, 400 without a query", () => {
    const never = () => new Promise<never>(() => {});
    const api = { load: never, loadWithBase: never, get: never };
    const loader = new RunnerLoader([api, api]);
    const answer = (query: string) =>
      hostSide.forgetAnswer(`http://127.0.0.1${FORGET_RUNNER_PATH}${query}`, (slot, quietMs) =>
        loader.forgetStale(slot, quietMs),
      );
    expect(answer("").status).toBe(400);
    expect(answer("?slot=0&quietMs=30000").status).toBe(400);
    // A quiet time shorter than a run may hold its runner would drop runs under way (and so the
    // per-caller cap): refused, and nothing is forgotten (slot 2's cold mark is still there below).
    expect(answer("?slot=2&quietMs=1").status).toBe(400);
    expect(answer("?slot=2&quietMs=14999").status).toBe(400);
    expect(UNUSED_MS).toBeGreaterThanOrEqual(hostSide.MIN_FORGET_QUIET_MS);
    expect(answer("?slot=3&quietMs=30000").status).toBe(404);
    // Slot 2 starts cold (runners there start on demand): the mark is forgotten, once.
    const first = answer("?slot=2&quietMs=30000");
    expect(first.status).toBe(204);
    expect(first.headers.get(FORGOT_COLD_HEADER)).toBe("1");
    expect(first.headers.get(FORGOT_RUNS_HEADER)).toBe("0");
    expect(answer("?slot=2&quietMs=30000").headers.get(FORGOT_COLD_HEADER)).toBe("0");
  });
});

describe("the supervisor's request to the host", () => {
  it("carries the secret in both headers, names the slot and reads the answer", async () => {
    const seen: { url?: string; method?: string; secrets: unknown[] }[] = [];
    let status = 204;
    const socket = await listenRuntime(
      createServer((req, res) => {
        seen.push({
          url: req.url,
          method: req.method,
          secrets: [req.headers[CLUSTER_SECRET_HEADER], req.headers[SUPERVISOR_SECRET_HEADER]],
        });
        res.writeHead(status, { [FORGOT_COLD_HEADER]: "1", [FORGOT_RUNS_HEADER]: "2" }).end();
      }),
    );
    expect(await askHostToForget(socket, 1, 30_000.4)).toEqual({ cold: true, runs: 2 });
    expect(seen).toEqual([
      {
        url: `${FORGET_RUNNER_PATH}?slot=1&quietMs=30000`,
        method: "POST",
        secrets: [clusterSecret, clusterSecret],
      },
    ]);
    status = 404;
    expect(await askHostToForget(socket, 3, 30_000)).toBeNull();
    expect(await askHostToForget(`${socket}.none`, 1, 30_000)).toBeNull();
  });
});
