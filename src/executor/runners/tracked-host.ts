/**
 * The host bridge as a run on a runner receives it from the host: the same `call`, passed on to
 * the run's `HostBridge`, and `begin`, which the runner calls (and awaits) before it starts the run. Both are
 * reported to the {@link RunnerLoader} (its signs that the runner makes progress). Once the loader
 * has moved the run to another runner it closes this copy: its calls are refused, so a run is
 * never carried out twice with effects. An `RpcTarget`, so it crosses to the runner as a stub;
 * its fields are private, so nothing but `begin`, `wanted`, `call`, `overLimit` and `overWaiting` is reachable from there
 * (the runner hands the sandbox its own `PacedHost`, never this).
 */
import { RpcTarget } from "cloudflare:workers";
import { movedReply, type HostEvents, type HostTracker } from "./host-tracker";

interface HostCalls {
  call(...args: unknown[]): unknown;
}

interface OverLimit {
  refuseOverLimit(namespace: unknown, name: unknown): unknown;
  refuseWaiting(namespace: unknown, name: unknown): unknown;
}

class TrackedHost extends RpcTarget {
  readonly #host: HostCalls;
  readonly #events: HostEvents;
  #closed = false;

  constructor(host: HostCalls, events: HostEvents) {
    super();
    this.#host = host;
    this.#events = events;
  }

  /**
   * The runner is about to begin the run: whether it should (false once the run was moved, or
   * once its bridge closed: a runner whose thread was held may get to a run only after the
   * host's timeout answered it, and that run must not start). The runner waits for this answer
   * before it runs anything.
   */
  begin(): boolean {
    if (!this.wanted()) return false;
    this.#events.onBegin();
    return true;
  }

  /**
   * Whether the host still waits for this run: false once this copy was moved, or once the run's
   * bridge closed (its answer read, its timeout passed, or cancelled: a task's `tasks/cancel`,
   * whose run goes on in its own context, so nothing else tells the runner). The runner asks
   * while a run goes on, and ends a run that is no longer wanted (sandbox-runner.ts).
   */
  wanted(): boolean {
    return !this.#closed && (this.#host as { closed?: unknown }).closed !== true;
  }

  /** One host call of the run (see `HostBridgeApi.call`). */
  async call(
    namespace: unknown,
    name: unknown,
    argsText: unknown,
    logs: unknown,
    argsBytes?: unknown,
  ): Promise<unknown> {
    if (this.#closed) return movedReply();
    this.#events.onCall("start");
    try {
      // The binary values only when sent: a call without them stays the four arguments it was.
      return await (argsBytes === undefined
        ? this.#host.call(namespace, name, argsText, logs)
        : this.#host.call(namespace, name, argsText, logs, argsBytes));
    } finally {
      this.#events.onCall("end");
    }
  }

  /**
   * The runner refuses a call past the run's `maxHostCalls` without sending it (it holds more
   * calls of the run than the limit allows): the run's bridge records the limit and answers the
   * refusal (`HostBridge.refuseOverLimit`).
   */
  overLimit(namespace: unknown, name: unknown): unknown {
    if (this.#closed) return movedReply();
    return (this.#host as Partial<OverLimit>).refuseOverLimit?.(namespace, name);
  }

  /**
   * The runner refuses a call it would have to keep waiting past its bound of argument text,
   * without sending the arguments: the run's bridge counts it and answers the refusal
   * (`HostBridge.refuseWaiting`).
   */
  overWaiting(namespace: unknown, name: unknown): unknown {
    if (this.#closed) return movedReply();
    return (this.#host as Partial<OverLimit>).refuseWaiting?.(namespace, name);
  }

  /** Cuts this copy of the run off from the host (not reachable over RPC: see below). */
  static close(target: TrackedHost): void {
    target.#closed = true;
  }
}

/** The {@link HostTracker} of the Worker: a {@link TrackedHost} per run and runner. */
export const trackHostCalls: HostTracker = (host, events) => {
  const target = new TrackedHost(host as HostCalls, events);
  return { target, close: () => TrackedHost.close(target) };
};
