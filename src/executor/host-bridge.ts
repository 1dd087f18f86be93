/**
 * The host side of sandbox → host calls: an `RpcTarget` passed to the sandbox as an RPC
 * argument (an RpcTarget placed in a loaded worker's env fails to clone). It decodes arguments,
 * enforces the host-call limit, runs the host function with an AbortSignal, and encodes the
 * answer. Once closed (run finished, timed out or cancelled) it aborts calls in flight and
 * refuses new ones, so no host work outlives its run.
 */
import { RpcTarget } from "cloudflare:workers";
import { decodeValue, encodeValue } from "../../sandbox/codec";
import type { HostBridgeApi, HostReply, LogEntry } from "../../sandbox/protocol";
import type { HostNamespaces } from "./types";

/** Per-run host bridge. */
export class HostBridge extends RpcTarget implements HostBridgeApi {
  /** Host calls accepted so far. */
  calls = 0;
  /** Message of the limit that was hit, if any. */
  limitHit: string | undefined;
  /** Console lines delivered early by the sandbox (piggybacked on host calls). */
  readonly logs: LogEntry[] = [];
  private readonly controller = new AbortController();

  constructor(
    private readonly namespaces: HostNamespaces,
    private readonly maxHostCalls: number,
  ) {
    super();
  }

  /**
   * Handles one call from the sandbox. Never throws: failures are replies. Not `async`: a host
   * function that answers synchronously gets its reply encoded at once, without a promise.
   */
  call(
    namespace: string,
    name: string,
    argsText: string,
    logs: LogEntry[] | undefined,
  ): HostReply | Promise<HostReply> {
    if (Array.isArray(logs)) this.logs.push(...logs);
    if (this.controller.signal.aborted)
      return fail("Error", `${namespace}.${name}() was called after the run ended.`);
    if (this.calls >= this.maxHostCalls) {
      this.limitHit = `Host call limit of ${this.maxHostCalls} reached at ${namespace}.${name}(): batch the work into fewer calls or ask the host for a larger maxHostCalls.`;
      return fail("LimitError", this.limitHit);
    }
    const fns = Object.hasOwn(this.namespaces, namespace) ? this.namespaces[namespace] : undefined;
    const fn = fns && Object.hasOwn(fns, name) ? fns[name] : undefined;
    if (typeof fn !== "function")
      return fail("TypeError", `${namespace}.${name} is not a function.`);
    this.calls++;
    let args: unknown;
    try {
      args = decodeValue(argsText);
    } catch {
      return fail(
        "TypeError",
        `${namespace}.${name}() received arguments that could not be decoded.`,
      );
    }
    try {
      const value = fn(Array.isArray(args) ? args : [args], {
        namespace,
        name,
        signal: this.controller.signal,
      });
      if (typeof (value as { then?: unknown } | null)?.then !== "function")
        return encodeValue(value);
      return Promise.resolve(value).then(encodeValue, (error: unknown) =>
        failure(error, namespace, name),
      );
    } catch (error) {
      return failure(error, namespace, name);
    }
  }

  /** Ends the run: aborts calls in flight and refuses new ones. */
  close(): void {
    this.controller.abort(new Error("The run ended."));
  }
}

function failure(error: unknown, namespace: string, name: string): HostReply {
  if (error instanceof Error) return fail(error.name || "Error", error.message);
  return fail("Error", `${namespace}.${name}() failed: ${String(error)}`);
}

function fail(name: string, message: string): HostReply {
  return { error: { name, message } };
}
