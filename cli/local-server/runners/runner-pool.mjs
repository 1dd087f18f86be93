/**
 * The sandbox runners (docs/local-runtime.md): workerd processes that run every program, each in
 * a slot with a fixed RPC address (a Unix socket in the server's private folder:
 * socket-folder.mjs; a replacement binds the same name, or its socket is renamed onto it, so the
 * host's service binding holds). Its decisions live here, each unit-tested with fake runtimes
 * and a fake clock (test/unit/cli/supervisor/runner-pool.test.ts):
 *
 * - **Replace.** A runner that exits, reports a crash or shows no progress for
 *   {@link RUNNER_STUCK_MS} (a program holds its thread for good) is ended and the slot's next
 *   one started; its runs in flight fail at once on the host with a clear error, and the other
 *   runners go on. A slot whose runners keep failing to start ({@link RUNNER_FAILURES} failures
 *   in a row) stops the server; a runner that started and then failed (a program held or crashed
 *   it) never counts toward that, however often.
 * - **Retire.** After a number of runs a runner is asked to begin no more, its runs under way are
 *   waited for, and it is ended and started afresh (runner-retirement.mjs says why and which one
 *   goes next; slot-retirement.mjs how, with a deadline, one asked retirement at a time).
 * - **Prepare.** A runner silent for a while gets its replacement started beside it, which takes
 *   its place at once if it is replaced (prepared-replacement.mjs says when, and why;
 *   slot-preparation.mjs starts, gives up and swaps it in).
 * - **Warm.** With the shared-worker executor, every runner started gets the engine's code,
 *   copied from a runner the host sent it to, and loads it before a run needs it
 *   (stable-warmth.mjs says why and when).
 * - **Grow and shrink** (issue #43: an idle runner costs ~59 MB). With `keep` below `count`, only
 *   `keep` runners start with the server; every other slot, and `spare` slots beyond `count`,
 *   have a doorbell on their RPC address instead (a listener of the supervisor's own that ends
 *   every connection at once, so the host sees the slot refuse). The host tries a slot without a
 *   serving runner only when none of its serving runners is idle (runner-placement.ts: such a
 *   slot ranks after an idle runner), so a connection there is the host asking for one more: the
 *   slot's runner is started ({@link RunnerPool.wanted}). A spare slot's doorbell starts an
 *   empty regular slot while there is one, so a spare runs only while all `count` runners run
 *   and the host still finds none free (every one held by a stalling program): at most `spare`
 *   temporary runners. A runner beyond the first `keep` that has begun no run and had none under
 *   way for a while (idle-runner-end.mjs says how long) is retired like any
 *   other (it is asked, begins no run, its runs under way are waited for) and its slot gets its
 *   doorbell back; a run sent there meanwhile is answered "retiring" and goes to another runner.
 *   While the pool is busy the spare runs too, ahead of the run that needs it (the warm spare:
 *   warm-spare.mjs says why and how long); with `keepWarmSpare` and the shared worker's engine,
 *   while idle too (`teach` below).
 */
import { grownIdleSlots } from "./grown-idle-runner.mjs";
import { PREPARE_LOOK_MS, createSlotPreparation } from "./slot-preparation.mjs";
import { createWarmth } from "./stable-warmth.mjs";
import { poolBusy, slotForRing, sparesToStart } from "./warm-spare.mjs";
import { idleRunnersToEnd } from "./idle-runner-end.mjs";
import { CHECK_EVERY_MS, DEFAULT_MAX_RUNS } from "./runner-retirement.mjs";
import { createSlotRetirement, dueRetirement } from "./slot-retirement.mjs";

/**
 * No sign of progress from a runner for this long means a program holds its thread for good. An
 * honest program's longest stretch without yielding is bounded by its operation budget (20
 * million operations: 0.1–2 s even on a loaded machine); ten seconds is far past that, and far
 * below the 30 s run timeout, so the runs sharing the runner learn of it early.
 */
export const RUNNER_STUCK_MS = 10_000;
/**
 * A slot failing this many times in a row stops the server: a runner that fails and then this
 * many less one starts of its replacement that fail (the slot cannot run).
 */
export const RUNNER_FAILURES = 5;

/**
 * @typedef {import("../runtime.mjs").Runtime} Runtime
 * @typedef {{ index: number, runtime: Runtime | null, failures: number, retired: number, retiring: boolean, spare: boolean, starting: boolean, restarting: boolean, doorbell: (() => Promise<void>) | null, seenBegun: number, idleSince: number, preparing: boolean, prepared: Prepared | null }} RunnerSlot
 *   `spare`: beyond the configured count; `starting`: its runner is being started because the
 *   host asked; `restarting`: its next runner is being started after a failure or retirement
 *   (either way no second start may begin: it would bind the same socket); `doorbell`: closes
 *   the slot's doorbell, while it has one;
 *   `seenBegun`/`idleSince`: its runner's runs begun when last seen changing, and since when;
 *   `preparing`/`prepared`: its runner's replacement, being started or ready beside it
 *   (slot-preparation.mjs)
 * @typedef {import("./slot-preparation.mjs").Prepared} Prepared
 * @typedef {{ begun: number, underWay: number, retiring: boolean }} RunnerCounts
 */

/**
 * @typedef {object} RunnerPool
 * @property {RunnerSlot[]} slots
 * @property {() => Promise<boolean>} start - starts the kept slots' runners and the other
 *   slots' doorbells; whether all started
 * @property {() => string[]} addresses - the slots' RPC addresses, slot by slot (spares last)
 * @property {(slot: RunnerSlot) => Promise<void>} wanted - the host rang `slot`'s doorbell
 * @property {() => void} shrink - ends the runners idle for long enough (one look)
 * @property {(slot: RunnerSlot, runtime: Runtime, reason: string) => Promise<void>} replace
 * @property {() => Promise<void>} retireLoop - retires runners as they come due, ends idle ones
 *   and prepares replacements for silent ones, until stopped
 * @property {(slot: RunnerSlot, runtime: Runtime, begun: number, unasked?: boolean, idleMs?: number) => Promise<void>} retire -
 *   `idleMs` > 0: it is ended for being idle that long, and its slot gets its doorbell back
 * @property {() => void} stop - from now on, nothing is started, replaced or retired
 * @property {import("./stable-warmth.mjs").Warmth["teach"]} teach - warms the running runners
 *   with the host's stable code, and every runner started after (stable-warmth.mjs); with
 *   `keepWarmSpare`, starts the spares first and keeps them running from then on
 */

/**
 * Creates the pool of `count` slots. Nothing starts before {@link RunnerPool.start}.
 * @param {object} options
 * @param {number} options.count - runners at most (besides the spares)
 * @param {number} [options.keep] - runners kept running, started with the server (default:
 *   `count`, a fixed pool); the others start when the host asks and end when idle
 * @param {number} [options.spare] - slots beyond `count` for temporary runners (default 0)
 * @param {(slot: RunnerSlot, onRing: () => void) => Promise<() => Promise<void>>} [options.doorbell] -
 *   listens on the slot's RPC address and calls `onRing` when the host connects there; resolves
 *   to what closes it (needed when `keep` < `count` or `spare` > 0)
 * @param {(slot: RunnerSlot, onCrash: (runtime: Runtime) => void, firstAnswer: boolean) => Promise<Runtime | null>} options.launch -
 *   starts the slot's runner on its RPC address and resolves once it listens there, and with
 *   `firstAnswer` once it has also answered `/health` (null: it did not start). Only the server's
 *   start asks for that answer: a runner started later is reached by the host's runs as soon as
 *   it listens, and a program that holds its thread before the answer would hold it unwatched
 *   (below, `start`)
 * @param {(slot: RunnerSlot, onCrash: (runtime: Runtime) => void) => Promise<Prepared | null>} [options.launchAside] -
 *   starts a replacement for the slot's runner beside it, on a socket of its own, and resolves
 *   once it answers (null: it did not start); without it, no replacement is prepared
 * @param {(index: number) => string} options.addressOf - slot `index`'s RPC address, as the
 *   host's service binding connects to it
 * @param {(runtime: Runtime, onStuck: (reason: string) => void, since: number) => void} options.watch - starts
 *   its watchdog (health/watchdog.mjs, with {@link RUNNER_STUCK_MS}), its bound counted from `since`
 * @param {(runtime: Runtime) => Promise<boolean>} options.askToRetire - POST /retire; agreed?
 * @param {(runtime: Runtime) => Promise<RunnerCounts | null>} options.counts - its counts now
 * @param {(code: number) => void} options.fail - a slot keeps failing: stop the server
 * @param {(line: string) => void} options.log
 * @param {string} options.label
 * @param {import("../clock.mjs").Clock} options.clock
 * @param {(runtime: Runtime, hash: string) => Promise<Buffer | null>} [options.readCode] - the
 *   stable code a runner holds under `hash` (stable-warmth.mjs); without it and `warm`, no
 *   runner is warmed
 * @param {(runtime: Runtime, code: Buffer) => Promise<boolean>} [options.warm] - sends a runner
 *   that code to load now; whether it did
 * @param {number} [options.maxRuns] - runs after which a runner is retired (0: never)
 * @param {number} [options.runTimeoutMs] - the runs' timeout (the drain deadline's base)
 * @param {(runtime: Runtime) => number | undefined} [options.rssOf] - a runner's resident bytes
 *   (grown-idle-runner.mjs); without it, no kept runner is retired for its size
 * @param {boolean} [options.keepWarmSpare] - once the host hands over stable code to warm
 *   runners with ({@link RunnerPool.teach}: the shared worker's engine), the spares start and
 *   are kept running while idle too, warmed before the server is ready. Why: a runner started
 *   for a burst of stalls loads the engine after its start, and the other clients' searches of
 *   that first burst waited for both (e2e fair-share-cold, shared worker: 0.85–1.8 s at load
 *   6–21; with the spare kept, 269–669 ms at load 9.8–16.6). Costs the spare's memory while
 *   idle (~97 MiB with the engine; bench/README.md, "The engine's load in a fresh runner")
 * @returns {RunnerPool}
 */
export function createRunnerPool({
  count,
  keep = count,
  spare = 0,
  doorbell = async () => async () => {},
  launch,
  launchAside,
  addressOf,
  watch,
  askToRetire,
  counts,
  fail,
  log,
  label,
  clock,
  maxRuns = DEFAULT_MAX_RUNS,
  runTimeoutMs = 30_000,
  readCode,
  warm,
  rssOf = () => undefined,
  keepWarmSpare = false,
}) {
  // An object, not a variable: loops wait on it across awaits (the linter reads a plain
  // variable as never changing there). `spareKept`: the spares are kept running (keepWarmSpare,
  // once stable code was taught).
  const state = { stopping: false, spareKept: false };
  /** @type {RunnerSlot[]} */
  const slots = [];
  for (let index = 1; index <= count + spare; index++)
    slots.push({
      index,
      runtime: null,
      failures: 0,
      retired: 0,
      retiring: false,
      spare: index > count,
      starting: false,
      restarting: false,
      doorbell: null,
      seenBegun: -1,
      idleSince: 0,
      preparing: false,
      prepared: null,
    });
  /** Whether the slot's runner is one of those kept running (the first `keep` slots, and the
   * spares once {@link state}.spareKept). */
  const kept = (/** @type {RunnerSlot} */ slot) =>
    slot.index <= keep || (slot.spare && state.spareKept);
  const describe = (/** @type {Runtime} */ r) => `${r.name} (workerd pid ${r.pid})`;

  // Stable code copied between runners (stable-warmth.mjs): not to a retiring runner (it
  // begins no run, and the engine would cost it memory for nothing).
  const {
    warmRuntime,
    warmStep,
    teach: teachRunners,
  } = createWarmth({
    readCode,
    warm,
    running: () =>
      slots.flatMap((slot) => [
        ...(slot.runtime && !slot.retiring ? [slot.runtime] : []),
        ...(slot.prepared ? [slot.prepared.runtime] : []),
      ]),
    stopping: () => state.stopping,
    log,
    label,
    clock,
  });

  /**
   * Starts the slot's runner, or promotes the one prepared for it; resolves once it answers.
   * @param {RunnerSlot} slot
   * @param {Prepared} [prepared] - a replacement started beside the slot's last runner
   * @param {boolean} [firstAnswer] - wait for its first `/health` answer too (the server's
   *   start: a runner that never answers there stops the server)
   */
  const start = async (slot, prepared, firstAnswer = false) => {
    const asked = clock.now();
    // The runner binds the doorbell's address.
    const closing = slot.doorbell;
    slot.doorbell = null;
    if (closing) await closing();
    const runtime = prepared
      ? preparation.swapIn(prepared)
      : await launch(
          slot,
          (/** @type {Runtime} */ crashed) => void replace(slot, crashed, "it crashed"),
          // Watched from the moment it listens (issue #40, CI 2026-12-06): the host's runs
          // reach it then, and a blocking program that began before its first answer held it
          // for the 120 s a start may take, unwatched; its run timed out instead of failing
          // with the runner, and the next round's runs found every runner held.
          firstAnswer,
        );
    if (!runtime) return false;
    const started = runtime;
    // Ended while starting: a failure to start, which the caller counts.
    if (!started.isRunning()) return false;
    slot.runtime = started;
    void started.exited.then(() => {
      if (slot.runtime === started) void replace(slot, started, "it exited");
    });
    log(
      prepared
        ? `${label}: ${describe(started)} serves again at once (it was started while its predecessor did not answer).`
        : `${label}: ${describe(started)} ${slot.failures > 0 ? "serves again" : "is ready"}.${slot.starting ? ` It started in ${clock.now() - asked} ms.` : ""}`,
    );
    // Its own watchdog starts now. One that answered as it started (the server's start, a
    // prepared replacement) counts that answer as its last; one started when the host asked
    // counts from the ask: the run that asked reaches it as soon as it listens, and a blocking
    // program that began there held it until 10 s after its start (1–3 s on a loaded machine),
    // into the next round of e2e fair-share, whose runs then found every runner held (CI,
    // 2026-12-07, shared worker: another client waited 1.3 s).
    const since = firstAnswer || prepared ? clock.now() : asked;
    started.lastAnswer = since;
    slot.seenBegun = -1;
    slot.idleSince = clock.now();
    watch(started, (reason) => void replace(slot, started, reason), since);
    // A prepared one was warmed beside its predecessor.
    if (!prepared) warmRuntime(started);
    return true;
  };

  /** @type {RunnerPool["replace"]} */
  const replace = async (slot, runtime, reason) => {
    if (state.stopping || runtime.killedBecause) return;
    // A runner that is no slot's (none should be) is ended, never left running unwatched: it
    // would keep a blocked program's core, and the host's kept connection to it.
    if (slot.runtime !== runtime) return void (await runtime.kill(reason));
    log(
      `${label}: ${runtime.name} is replaced because ${reason}; its runs in flight end with a clear error, other runners go on.`,
    );
    // Taken before the kill: once the runner is ended, a look would find its prepared
    // replacement unwanted (slot-preparation.mjs) and end it.
    const prepared = preparation.take(slot);
    await runtime.kill(reason);
    if (slot.runtime !== runtime) return void (await preparation.giveUp(prepared));
    slot.runtime = null;
    // A runner that started and then failed starts a new count: the stop is for a slot whose
    // runner cannot start. A runner failing soon after its start is most often a program's doing
    // (one that holds its thread, or crashes it), and any client can send such programs: counted,
    // a dozen of them in a row stopped the whole server.
    slot.failures = 0;
    if (preparation.swappable(prepared)) {
      slot.restarting = true;
      try {
        if (await start(slot, prepared)) return;
      } finally {
        slot.restarting = false;
      }
    }
    await restart(slot, true);
  };

  // Replacements prepared beside silent runners, swapped in when those are replaced
  // (slot-preparation.mjs).
  const preparation = createSlotPreparation({
    slots,
    clock,
    launchAside,
    replace,
    warm: warmRuntime,
    stopping: () => state.stopping,
    log,
    label,
  });

  /**
   * Starts the slot's next runner after a failure (`failed`) or a retirement, and again while
   * it fails to start, less and less often; {@link RUNNER_FAILURES} failures in a row stop the
   * server.
   * @param {RunnerSlot} slot
   * @param {boolean} failed - the slot's last runner failed
   */
  const restart = async (slot, failed) => {
    const was = slot.restarting;
    slot.restarting = true;
    try {
      await restartLoop(slot, failed);
    } finally {
      slot.restarting = was;
    }
  };

  /** {@link restart}'s tries, while the slot is marked `restarting`. */
  const restartLoop = async (/** @type {RunnerSlot} */ slot, /** @type {boolean} */ failed) => {
    let failing = failed;
    while (!state.stopping) {
      if (failing) {
        slot.failures++;
        if (slot.failures >= RUNNER_FAILURES) {
          log(`${label}: runner ${slot.index} failed ${slot.failures} times in a row; stopping.`);
          return fail(1);
        }
        await clock.sleep(250 * (slot.failures - 1));
        if (state.stopping) return;
      }
      if (await start(slot)) return;
      failing = true;
    }
  };

  /**
   * Gives the slot its doorbell (the host's connections there ask for a runner), unless it has a
   * runner again or the server stops.
   * @param {RunnerSlot} slot
   */
  const openDoorbell = async (slot) => {
    if (state.stopping || slot.runtime || slot.starting || slot.restarting || slot.doorbell) return;
    const close = await doorbell(slot, () => void wanted(slot));
    if (slot.doorbell || slot.runtime || slot.starting || slot.restarting || state.stopping)
      await close();
    else slot.doorbell = close;
  };

  /**
   * Whether the slot has no runner and none on its way. A slot whose runner is being replaced is
   * not empty: its next runner is on its way, and a second start there would leave one of the
   * two running outside the pool.
   * @param {RunnerSlot} slot
   */
  const empty = (slot) => !slot.runtime && !slot.starting && !slot.restarting && !slot.retiring;

  /**
   * Starts an empty slot's runner, and again while it fails to start.
   * @param {RunnerSlot} slot
   * @param {string} why - the log line
   */
  const grow = async (slot, why) => {
    if (state.stopping || !empty(slot)) return;
    slot.starting = true;
    try {
      log(why);
      if (!(await start(slot))) await restart(slot, true);
    } finally {
      slot.starting = false;
    }
  };

  /** @type {RunnerPool["wanted"]} */
  const wanted = async (rung) => {
    // A spare's doorbell starts a regular slot while one is empty (warm-spare.mjs).
    const slot = slotForRing(rung, slots, empty);
    const running = slots.filter((s) => !s.spare && s.runtime && !s.runtime.killedBecause).length;
    await grow(
      slot,
      slot.spare
        ? `${label}: a spare runner (${slot.index}, beyond the ${count} configured) is started: the host found every runner held.`
        : `${label}: runner ${slot.index} is started (${running + 1} of at most ${count}): the host found no runner free.`,
    );
    if (!slot.spare) await warmSpares();
  };

  /** Starts the warm spare (warm-spare.mjs) once the host asked for a runner beyond the kept. */
  const warmSpares = async () => {
    // One start at a time; the pool may be idle again by the next.
    for (const slot of sparesToStart(slots, keep, empty))
      if (poolBusy(slots, keep))
        await grow(
          slot,
          `${label}: the spare runner (${slot.index}, beyond the ${count} configured) is started beside them: it stands ready for runs that find every runner held.`,
        );
  };

  // Retiring a runner, after its runs or for being idle (slot-retirement.mjs).
  const { retire, retireInTurn } = createSlotRetirement({
    stopping: () => state.stopping,
    askToRetire,
    counts,
    restart: (slot) => restart(/** @type {RunnerSlot} */ (slot), false),
    openDoorbell: (slot) => openDoorbell(/** @type {RunnerSlot} */ (slot)),
    clock,
    runTimeoutMs,
    log,
    label,
  });

  /** @type {RunnerPool["shrink"]} */
  const shrink = () => {
    // Ended like any retired runner (asked, drained); its slot gets its doorbell back.
    for (const { slot, runtime, begun, idleMs } of idleRunnersToEnd(
      slots,
      keep,
      clock.now(),
      state.spareKept,
    ))
      void retire(slot, runtime, begun, false, idleMs);
  };

  const grownIdle = grownIdleSlots({ kept, rssOf, maxRuns });

  /** @type {RunnerPool["teach"]} */
  const teach = async (hash, code, boundMs) => {
    if (keepWarmSpare && !state.stopping) {
      // The spares first, so the runners are warmed together and the server is ready with a
      // warm spare (one start at a time, as warm-spare.mjs starts them), within the bound.
      const from = clock.now();
      state.spareKept = true;
      const spares = (async () => {
        for (const slot of slots)
          if (slot.spare && empty(slot))
            await grow(
              slot,
              `${label}: the spare runner (${slot.index}, beyond the ${count} configured) is started and kept while idle: with the shared worker's engine, it stands ready for runs that find every runner held.`,
            );
      })();
      await Promise.race([spares, clock.sleep(boundMs)]);
      return teachRunners(hash, code, Math.max(0, boundMs - (clock.now() - from)));
    }
    return teachRunners(hash, code, boundMs);
  };

  return {
    slots,
    // At the server's start a runner that does not start stops the server (the cause is in its
    // output, which the launcher shows): no retries.
    start: async () =>
      (
        await Promise.all(
          slots.map(async (slot) =>
            kept(slot) ? start(slot, undefined, true) : (await openDoorbell(slot), true),
          ),
        )
      ).every(Boolean),
    addresses: () => slots.map((slot) => addressOf(slot.index)),
    teach,
    replace,
    retire,
    wanted,
    shrink,
    stop: () => {
      state.stopping = true;
      for (const slot of slots) {
        void slot.doorbell?.();
        slot.doorbell = null;
      }
    },
    retireLoop: async () => {
      void (async () => {
        while (!state.stopping) {
          await clock.sleep(PREPARE_LOOK_MS);
          if (!state.stopping) preparation.look();
          warmStep();
        }
      })();
      while (!state.stopping) {
        await clock.sleep(CHECK_EVERY_MS);
        if (state.stopping) return;
        shrink();
        // A kept runner grown by past work is retired once idle (grown-idle-runner.mjs).
        const grown = grownIdle(slots, clock.now());
        if (grown) retireInTurn(grown.slot, grown.runtime, grown.begun);
        let next = dueRetirement(slots, maxRuns);
        // A runner retiring unasked serves nothing: replaced at once, beside any other, and every
        // such runner in this same look (`retire` marks its slot retiring before it awaits, so
        // the next choice is another). One per look left a burst of POST /retire to every
        // runner (e2e retire-storm) with no serving runner for a look (2 s) per runner; the host
        // holds runs meanwhile (runner-loader.ts), but only within its retry window.
        while (next?.unasked) {
          void retire(next.slot, next.runtime, next.begun, true);
          next = dueRetirement(slots, maxRuns);
        }
        // An asked retirement waits for the one under way.
        if (next) retireInTurn(next.slot, next.runtime, next.begun);
      }
    },
  };
}
