/**
 * How the runner loader watches one run's host bridge: it learns when the runner begins the run
 * and when its host calls start and end (its signs of progress, which placement reads), and can
 * cut the run off from the host (`close`: its calls are refused from then on, so a copy of a run
 * moved to another runner never calls the host). The Worker passes one that builds an `RpcTarget`
 * (tracked-host.ts); {@link plainTracker} serves callers outside a Worker (tests).
 */

/** What a {@link HostTracker} reports about one run on one runner. */
export interface HostEvents {
  /** A host call of the run began or ended. */
  onCall(phase: "start" | "end"): void;
  /** The runner is beginning the run (it waits for the tracker's yes before it does). */
  onBegin(): void;
}

/**
 * Wraps a run's host bridge for one runner (see the module comment). What the runner receives
 * must cross Workers RPC when the loader runs in a Worker.
 */
export type HostTracker = (host: unknown, events: HostEvents) => { target: unknown; close(): void };

/** What a cancelled copy of a run gets for a host call (it is never read: the run moved). */
export const MOVED = "This run was moved to another runner; this copy may not call the host.";

/**
 * The refusal of a moved copy's host call, marked `spent` as the bridge marks its refusals after
 * a run's end (host-bridge.ts): the sandbox answers the copy's later calls itself, charged to its
 * budget, so a copy that loops on caught calls makes no round trip per call.
 */
export const movedReply = () => ({ error: { name: "Error", message: MOVED }, spent: true });

interface HostCalls {
  call(...args: unknown[]): unknown;
}

/** A plain wrapper, for callers outside a Worker (tests). */
export const plainTracker: HostTracker = (host, events) => {
  let closed = false;
  // As TrackedHost: a copy moved elsewhere, or a run whose bridge closed, is no longer wanted.
  const wanted = () => !closed && (host as { closed?: unknown } | null)?.closed !== true;
  return {
    target: {
      begin: () => {
        if (!wanted()) return false;
        events.onBegin();
        return true;
      },
      wanted,
      overLimit: (namespace: unknown, name: unknown) =>
        closed
          ? movedReply()
          : (host as { refuseOverLimit?(ns: unknown, n: unknown): unknown }).refuseOverLimit?.(
              namespace,
              name,
            ),
      overWaiting: (namespace: unknown, name: unknown) =>
        closed
          ? movedReply()
          : (host as { refuseWaiting?(ns: unknown, n: unknown): unknown }).refuseWaiting?.(
              namespace,
              name,
            ),
      call: async (...args: unknown[]) => {
        if (closed) return movedReply();
        events.onCall("start");
        try {
          return await (host as HostCalls).call(...args);
        } finally {
          events.onCall("end");
        }
      },
    },
    close: () => {
      closed = true;
    },
  };
};
