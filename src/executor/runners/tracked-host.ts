/**
 * The host bridge as a run on a runner receives it from the host: the same `call`, passed on to
 * the run's `HostBridge`, reporting each call's start and end to the {@link RunnerLoader} (its
 * sign that the runner makes progress). An `RpcTarget`, so it crosses to the runner as a stub;
 * its fields are private, so nothing but `call` is reachable from there.
 */
import { RpcTarget } from "cloudflare:workers";
import type { HostTracker } from "./runner-loader";

interface HostCalls {
  call(...args: unknown[]): unknown;
}

class TrackedHost extends RpcTarget {
  readonly #host: HostCalls;
  readonly #onCall: (phase: "start" | "end") => void;

  constructor(host: HostCalls, onCall: (phase: "start" | "end") => void) {
    super();
    this.#host = host;
    this.#onCall = onCall;
  }

  /** One host call of the run (see `HostBridgeApi.call`). */
  async call(
    namespace: unknown,
    name: unknown,
    argsText: unknown,
    logs: unknown,
  ): Promise<unknown> {
    this.#onCall("start");
    try {
      return await this.#host.call(namespace, name, argsText, logs);
    } finally {
      this.#onCall("end");
    }
  }
}

/** The {@link HostTracker} of the Worker: a {@link TrackedHost} per run. */
export const trackHostCalls: HostTracker = (host, onCall) =>
  new TrackedHost(host as HostCalls, onCall);
