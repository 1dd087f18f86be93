/**
 * The fetch under a remote upstream's transport, shaping what the SDK client sends so a cold
 * connection costs fewer round trips without changing what a correct server sees:
 *
 * - the 2025-era standalone stream (a `GET` without `Last-Event-ID`, opened after every
 *   `initialize`) is answered `405` here, as a server without that stream would: a run listens
 *   to nothing outside its own requests, so the stream would be a wasted connection;
 * - optionally, `notifications/initialized` is sent without waiting for its `202`: the spec asks
 *   the client to send it after the `initialize` result, and lets requests follow that result
 *   (it is a notification: nothing in its answer is needed). The next request (the tool listing)
 *   then shares its round trip. {@link UpstreamFetch.initialized} says when it was answered.
 */

/** A fetch function (the global one, a service binding's, or a test's). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A fetch for one connection, and what it sent without waiting. */
export interface UpstreamFetch {
  fetch: FetchLike;
  /**
   * The answer to the `notifications/initialized` sent without waiting (`undefined` when none
   * was): settles when it was answered, rejects when the upstream refused it.
   */
  initialized(): Promise<void> | undefined;
}

/**
 * Wraps `base` for one connection (see the module comment).
 * @param base - the upstream's fetch
 * @param eagerInitialized - send `notifications/initialized` without waiting for its answer
 */
export function upstreamFetch(base: FetchLike, eagerInitialized: boolean): UpstreamFetch {
  let pending: Promise<void> | undefined;
  const fetch: FetchLike = (input, init) => {
    const method = (
      init?.method ?? (input instanceof Request ? input.method : "GET")
    ).toUpperCase();
    if (method === "GET") {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
      if (!headers.has("last-event-id"))
        return Promise.resolve(new Response(null, { status: 405 }));
    }
    if (eagerInitialized && method === "POST" && isInitializedNotification(init?.body)) {
      pending = base(input, init).then(async (response) => {
        await response.body?.cancel();
        if (!response.ok)
          throw new Error(
            `the upstream refused notifications/initialized (HTTP ${response.status})`,
          );
      });
      // Observed by initialized(); never an unhandled rejection meanwhile.
      pending.catch(() => {});
      return Promise.resolve(new Response(null, { status: 202 }));
    }
    return base(input, init);
  };
  return { fetch, initialized: () => pending };
}

/** Whether a request body is the single `notifications/initialized` message. */
function isInitializedNotification(body: unknown): boolean {
  if (typeof body !== "string" || !body.includes("notifications/initialized")) return false;
  try {
    const message = JSON.parse(body) as { method?: unknown; id?: unknown };
    return message.method === "notifications/initialized" && message.id === undefined;
  } catch {
    return false;
  }
}
