/**
 * Ending a run inside a stable worker (the shared worker's engine, sandbox/engine/runner.ts) that
 * its caller has given up on. Dropping the call is not enough there: the engine runs many programs
 * in one worker and keeps each run past a dropped call until its own deadline (so that the run is
 * freed at all), holding its memory, its place among the runs under way, and the engine's
 * template, which only a run alone in the engine gets. So the caller gives each run a key of its
 * own, a random secret sent with the call, and ends the run with it (`end(key)`).
 *
 * Why a key and not a run number: whoever holds the worker's entrypoint could end any run whose
 * name it can guess or learn. The key is made here from the platform's random source, crosses only
 * in the caller's own call (never in the run's request, which the program's harness reads), and
 * no program reaches the worker's entrypoint: only the caller that started a run can end it.
 */

/** Random bytes in a key: as hard to guess as a cluster secret (cluster-secret.ts). */
const END_KEY_BYTES = 32;

/**
 * How long the caller waits for a stable worker to confirm a run ended: the engine stops it within
 * ~0.1 s and answers once it is freed (at most 2 s); a worker that does not answer in time (its
 * thread held by another program) is not waited for longer.
 */
export const END_WAIT_MS = 2_500;

/** A stable worker's entrypoint that may end a run by its key. */
export interface EndableEntrypoint {
  end?(key: string): Promise<unknown>;
}

/**
 * A fresh key for one run: {@link END_KEY_BYTES} random bytes as hex (64 characters).
 * @returns the key
 */
export function newEndKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(END_KEY_BYTES));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Asks the worker to end the run started with `key`, and waits for its word (at most `waitMs`).
 * Never throws: a worker without `end`, or one that fails, ended nothing. The ask leaves at once,
 * so a worker that hears it ends the run even when its word is no longer waited for.
 * @param entry - the worker's entrypoint the run was started on
 * @param key - the run's key
 * @param waitMs - how long to wait for the word (default {@link END_WAIT_MS})
 * @param keep - given the `end` call itself, to keep it going past the caller's own request
 *   (a WorkerEntrypoint's `ctx.waitUntil`): the caller stops waiting after `waitMs` and answers,
 *   and workerd may cancel what its request still has in flight once that answer is out
 * @returns true when the worker confirmed the run ended and freed
 */
export async function endRun(
  entry: EndableEntrypoint,
  key: string,
  waitMs: number = END_WAIT_MS,
  keep?: (pending: Promise<unknown>) => void,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    // Called as a method of the stub: a method taken off an RPC stub would name a remote
    // method "end.call" (as run-wanted.ts's announce says).
    const asked = Promise.resolve(entry.end?.(key));
    keep?.(asked.catch(() => {}));
    const answer = await Promise.race([
      asked,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs))),
    ]);
    return answer === true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
