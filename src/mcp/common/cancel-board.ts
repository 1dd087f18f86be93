/**
 * Where a `notifications/cancelled` finds the request it cancels when another server serves it
 * (issue #40). On the stateless lane each POST is served by a server of its own, and on the
 * sessionful lanes a session may be served by a fresh server per request
 * (createLegacyMcpHandler in a plain Worker), so the cancel's server knows no such request and
 * the SDK drops it: the cancelled run went on until its timeout (e2e gone-client, 29.5 s after
 * the cancel). The POST that carries a request enters it here while it is served; a cancel POST
 * of the same caller (stateless: {@link cancelKey}) or session (sessions/legacy/cancel-relay.ts)
 * marks it; the request's own POST sees the mark and aborts the signal it served the request
 * with ({@link watchCancel}), which ends the run as any cancelled run ends (run-end.ts; on a
 * local runner, within its next asking: run-wanted.ts).
 *
 * Security defaults: a request is known by its caller's identity and address, or its session,
 * as well as its JSON-RPC id, so a caller cannot cancel another caller's run by guessing a
 * small id. A mark is made only for a request in flight, so the board holds at most one entry per
 * request being served. The mark is read by the request's own POST, on a timer of its own: a
 * POST never aborts, resolves or touches what another POST's request made (workerd: "Cannot
 * perform I/O on behalf of a different request").
 *
 * Does not do: the task lanes (a task's own `tasks/cancel` ends its run).
 */

/** How often a request's POST looks for a cancel of it on the board. */
export const CANCEL_POLL_MS = 250;

/**
 * How long an entry may stay on the board: a POST whose client went away may never leave it
 * (workerd drops the request's context, and its code never runs again), so older entries are let
 * go. Longer than any run (the executors' timeouts are minutes at most).
 */
export const CANCEL_ENTRY_MAX_MS = 60 * 60_000;

/**
 * How long a watched request's entry lasts without its POST's poll renewing it
 * ({@link watchCancel}: every {@link CANCEL_POLL_MS}, a timer of that POST, which workerd cancels
 * with a request it gives up): twenty polls. A client that sends requests and cuts each off
 * (issue #40, e2e cutoff-storm: 100 at a time, 32 a second past the local front's gate) left an
 * entry per request for {@link CANCEL_ENTRY_MAX_MS}; on a local server every client is one owner,
 * so once the board was full such entries pushed off another local client's, whose cancels then
 * no longer reached its runs. Now they go within seconds.
 */
export const CANCEL_LEASE_MS = 5_000;

/**
 * The longest key the board holds ({@link cancelKey}: caller, address and id). The id is the
 * client's to choose and a body may be megabytes: a request whose POST was dropped keeps its
 * entry for {@link CANCEL_ENTRY_MAX_MS}, so a client that sent requests with 4 MiB ids and went
 * away grew the isolate by 4 MiB each for an hour. A longer key is not watched (its request
 * cannot be cancelled from another POST; it still ends when its client goes away).
 */
export const CANCEL_KEY_MAX_CHARS = 512;

/**
 * The most requests on the board at once. Entries of POSTs whose client went away are never
 * left (see {@link CANCEL_ENTRY_MAX_MS}), so without a bound a client that opens requests and
 * drops them grew the board for an hour. Past it, the owner holding the most entries (a caller
 * at an address) gives up its oldest: that request can no longer be cancelled from another
 * POST. Letting the board's oldest go instead let a stranger push every other caller's requests
 * off by sending 4,096 requests and dropping their POSTs (41 batches of 100).
 */
export const CANCEL_BOARD_MAX_ENTRIES = 4096;

/**
 * The most requests of one POST (a JSON-RPC batch) that are watched: the SDK v2 handler refuses
 * larger batches, and a 4 MiB body may hold ~100,000 tiny requests, which would take as many
 * timers and push every other request off the board. A larger batch's requests are not watched
 * (they cannot be cancelled from another POST).
 */
export const CANCEL_BATCH_MAX_WATCHED = 100;

/** One request on the board, while its POST serves it. */
interface Entry {
  cancelled: boolean;
  /** POSTs serving a request under this key (the same id may be reused at once). */
  holders: number;
  /** When it was entered (ms since the epoch). */
  since: number;
  /** Who entered it ({@link CancelBoard.enter}'s `owner`). */
  owner: string;
  /** Its place in the order of entry (ties between owners go to the oldest). */
  order: number;
  /**
   * When a POST serving it last showed it is alive ({@link CANCEL_LEASE_MS}); undefined: not
   * leased (its POST renews nothing), let go only after {@link CANCEL_ENTRY_MAX_MS}.
   */
  seenAt: number | undefined;
}

/** The requests in flight on this isolate's stateless lane, by {@link cancelKey}. */
export class CancelBoard {
  readonly #entries = new Map<string, Entry>();
  /** Each owner's keys, the oldest first. */
  readonly #owners = new Map<string, Set<string>>();
  #prunedAt = 0;
  #lapsedAt = 0;
  #order = 0;

  /** @param now - the clock (tests pass their own) */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Enters a request while its POST serves it. A key whose entry was cancelled gets a fresh
   * one: a cancel reaches the requests in flight when it came, never a later one with that id.
   * @param key - its {@link cancelKey}
   * @param owner - who sent it, as far as the lane can tell (caller and address): when the
   *   board is full the owner holding the most entries gives one up, so a stranger's flood
   *   pushes off its own requests, not another caller's
   * @param leased - its POST calls `renew()` while it lives ({@link CANCEL_LEASE_MS}): an entry
   *   no POST renewed for that long is let go
   * @returns whether a cancel has reached it, `renew()` while its POST lives, and `leave()` for
   *   when it is served
   */
  enter(
    key: string,
    owner = "",
    leased = false,
  ): { cancelled(): boolean; renew(): void; leave(): void } {
    if (key.length > CANCEL_KEY_MAX_CHARS)
      return { cancelled: () => false, renew: () => {}, leave: () => {} };
    this.#prune();
    let entry = this.#entries.get(key);
    if (!entry || entry.cancelled) {
      if (entry) this.#drop(key, entry);
      else this.#makeRoom();
      const since = this.now();
      entry = {
        cancelled: false,
        holders: 0,
        since,
        owner,
        order: this.#order++,
        seenAt: undefined,
      };
      this.#entries.set(key, entry);
      const keys = this.#owners.get(owner);
      if (keys === undefined) this.#owners.set(owner, new Set([key]));
      else keys.add(key);
    }
    entry.holders++;
    const held = entry;
    if (leased) held.seenAt = this.now();
    let left = false;
    return {
      cancelled: () => held.cancelled,
      renew: () => {
        if (leased) held.seenAt = this.now();
      },
      leave: () => {
        if (left) return;
        left = true;
        if (--held.holders === 0 && this.#entries.get(key) === held) this.#drop(key, held);
      },
    };
  }

  /**
   * Marks the request under `key` cancelled.
   * @returns whether one was in flight (a cancel of nothing leaves nothing behind)
   */
  cancel(key: string): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    entry.cancelled = true;
    return true;
  }

  /**
   * Marks every request in flight whose key starts with `prefix` cancelled (a session that
   * ended: sessions/legacy/cancel-relay.ts). Looks at every entry: for rare events only.
   * @returns how many were in flight
   */
  cancelAll(prefix: string): number {
    let marked = 0;
    for (const [key, entry] of this.#entries)
      if (key.startsWith(prefix)) {
        entry.cancelled = true;
        marked++;
      }
    return marked;
  }

  /** Takes an entry off the board and off its owner's keys. */
  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    const keys = this.#owners.get(entry.owner);
    keys?.delete(key);
    if (keys?.size === 0) this.#owners.delete(entry.owner);
  }

  /**
   * While the board is full, lets go of the oldest entry of the owner holding the most (of the
   * oldest such entry on a tie). Looks at every owner: only when the board is full.
   */
  #makeRoom(): void {
    while (this.#entries.size >= CANCEL_BOARD_MAX_ENTRIES) {
      let chosen: { key: string; entry: Entry; count: number } | undefined;
      for (const keys of this.#owners.values()) {
        if (chosen !== undefined && keys.size < chosen.count) continue;
        const key = keys.values().next().value as string;
        const entry = this.#entries.get(key)!;
        if (chosen === undefined || keys.size > chosen.count || entry.order < chosen.entry.order)
          chosen = { key, entry, count: keys.size };
      }
      if (chosen === undefined) return;
      this.#drop(chosen.key, chosen.entry);
    }
  }

  /**
   * Lets go of leased entries not renewed for {@link CANCEL_LEASE_MS} (looked at once a second),
   * and of entries older than {@link CANCEL_ENTRY_MAX_MS} (once a minute).
   */
  #prune(): void {
    const now = this.now();
    if (now - this.#lapsedAt >= 1_000) {
      this.#lapsedAt = now;
      for (const [key, entry] of this.#entries)
        if (entry.seenAt !== undefined && now - entry.seenAt > CANCEL_LEASE_MS)
          this.#drop(key, entry);
    }
    if (now - this.#prunedAt < 60_000) return;
    this.#prunedAt = now;
    for (const [key, entry] of this.#entries)
      if (now - entry.since > CANCEL_ENTRY_MAX_MS) this.#drop(key, entry);
  }

  /** Requests on the board (for tests). */
  get size(): number {
    return this.#entries.size;
  }
}

/** This isolate's board: every stateless handler in it shares it (keys carry the caller). */
export const cancelBoard = new CancelBoard();

/**
 * A request's key on the board: its caller's identity (`callerIdentity`), the client's address
 * (`CF-Connecting-IP`, which the platform sets and the local server's front sets alone) and the
 * JSON-RPC id, as JSON (an id of 1 and one of "1" are two requests).
 */
export function cancelKey(caller: string, address: string, id: unknown): string {
  return JSON.stringify([caller, address, id]);
}

/**
 * Who sent a request, as a board's `owner` ({@link CancelBoard.enter}): its caller's identity and
 * address, on every lane (a session is not an owner of its own: a stranger mints sessions for
 * free, one `initialize` each).
 */
export function cancelOwner(caller: string, address: string): string {
  return JSON.stringify([caller, address]);
}

/**
 * The ids that the `notifications/cancelled` messages in a parsed body cancel (a batch may carry
 * several).
 */
export function cancelledIds(parsedBody: unknown): unknown[] {
  const messages = Array.isArray(parsedBody) ? parsedBody : [parsedBody];
  const ids: unknown[] = [];
  for (const message of messages) {
    if (typeof message !== "object" || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: unknown };
    if (method !== "notifications/cancelled" || typeof params !== "object" || params === null)
      continue;
    const id = (params as { requestId?: unknown }).requestId;
    if (typeof id === "string" || typeof id === "number") ids.push(id);
  }
  return ids;
}

/**
 * The id of the request a parsed body carries, when it is one request (not a batch, not a
 * notification or a response).
 */
export function requestIdOf(parsedBody: unknown): string | number | undefined {
  if (typeof parsedBody !== "object" || parsedBody === null || Array.isArray(parsedBody))
    return undefined;
  const { id, method } = parsedBody as { id?: unknown; method?: unknown };
  if (typeof method !== "string") return undefined;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * Watches the board for a cancel of one request while its POST serves it: the signal returned
 * aborts when the request's own signal does or when a cancel of it arrives (looked for every
 * {@link CANCEL_POLL_MS}, on this POST's timer). `stop()` when the request is served. `owner`
 * is its sender's {@link cancelOwner} (who gives up an entry when the board is full).
 */
export function watchCancel(
  board: CancelBoard,
  key: string,
  own: AbortSignal | undefined,
  owner = "",
): { signal: AbortSignal; stop(): void } {
  // Leased: its poll below renews it, so an entry whose POST workerd dropped goes within
  // CANCEL_LEASE_MS, not CANCEL_ENTRY_MAX_MS.
  const held = board.enter(key, owner, true);
  const controller = new AbortController();
  const stop = () => {
    clearInterval(timer);
    own?.removeEventListener("abort", onOwn);
    held.leave();
  };
  const onOwn = () => {
    controller.abort(own?.reason);
    stop();
  };
  const timer = setInterval(() => {
    held.renew();
    if (!held.cancelled()) return;
    controller.abort(new DOMException("The client cancelled the request.", "AbortError"));
    stop();
  }, CANCEL_POLL_MS);
  if (own?.aborted) onOwn();
  else own?.addEventListener("abort", onOwn, { once: true });
  return { signal: controller.signal, stop };
}

/**
 * The response, with `stop` called once its body has been sent (at once when it has none): an
 * event stream answers a request while its handler still runs, and a cancel must reach it until
 * its last event. A client that cancels the body (it went away) stops the watch too.
 * @param response - the answer to a watched request
 * @param stop - its watch's `stop`
 * @returns the response to send
 */
export function stopWhenSent(response: Response, stop: () => void): Response {
  if (response.body === null) {
    stop();
    return response;
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({ flush: stop });
  response.body.pipeTo(writable).catch(stop);
  return new Response(readable, response);
}
