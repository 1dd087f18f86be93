/**
 * Shares one run of an async start-up among concurrent callers, but forgets a failed run: a
 * transient failure (a storage error, a throwing `init()`) is retried by the next caller
 * instead of being cached for the life of the instance.
 */

/**
 * Wraps `run` so it runs at most once at a time and once for good after it succeeds.
 *
 * @param run - the start-up to share
 * @returns a function returning the shared promise
 */
export function onceUntilFailure<T>(run: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending === undefined) {
      const started = run();
      pending = started;
      started.catch(() => {
        if (pending === started) pending = undefined;
      });
    }
    return pending;
  };
}
