/**
 * Limits wrong passphrases on the OAuth consent page, per client and per address, so the owner's
 * passphrase cannot be guessed at request speed (50 guesses in 2 s were possible before).
 *
 * Storage: the OAuth provider's KV (`OAUTH_KV`, or the `OAUTH_STORE` Durable Object behind the
 * same interface). Keys `consent-failures:client:<clientId>` and `consent-failures:addr:<ip>`
 * hold `{ count, resetAt }` and expire with their window.
 *
 * Security defaults: once either key reaches {@link MAX_FAILURES} within {@link WINDOW_MS}, the
 * form is refused (`429` with `Retry-After`) without checking the passphrase, so locked-out
 * guesses teach nothing. The address is `CF-Connecting-IP`, which Cloudflare sets and a client
 * cannot; without it (local runs) all callers share one address, which makes the address limit
 * a global one there.
 *
 * Does not do: atomic counting (two concurrent guesses may both be counted after both were
 * checked, so a burst can exceed the limit by its concurrency), or stop an attacker who
 * registers new clients from many addresses (each pair gets its own budget).
 */

/** Wrong passphrases allowed per client and per address within one window. */
export const MAX_FAILURES = 5;
/** Length of the window in milliseconds (15 minutes). */
export const WINDOW_MS = 15 * 60_000;

interface Failures {
  count: number;
  resetAt: number;
}

/** The KV operations the limiter needs (a `KVNamespace` has them). */
type Kv = Pick<KVNamespace, "get" | "put">;

/**
 * The attempt limiter for one consent request.
 * @param kv - the provider's KV namespace
 * @param clientId - the OAuth client asking
 * @param request - the consent page request (its `CF-Connecting-IP`)
 */
export function consentAttempts(kv: Kv, clientId: string, request: Request) {
  const address = request.headers.get("cf-connecting-ip") ?? "unknown";
  const keys = [
    `consent-failures:client:${clientId.slice(0, 200)}`,
    `consent-failures:addr:${address.slice(0, 64)}`,
  ];
  const read = async (key: string): Promise<Failures | undefined> => {
    const value = (await kv.get(key, "json")) as Failures | null;
    return value && value.resetAt > Date.now() ? value : undefined;
  };
  return {
    /** Seconds until guessing is allowed again, or 0 when it is allowed now. */
    async lockedForSeconds(): Promise<number> {
      const all = await Promise.all(keys.map(read));
      const locked = all.filter((f): f is Failures => f !== undefined && f.count >= MAX_FAILURES);
      if (locked.length === 0) return 0;
      const until = Math.max(...locked.map((f) => f.resetAt));
      return Math.max(1, Math.ceil((until - Date.now()) / 1000));
    },
    /** Counts one wrong passphrase against the client and the address. */
    async recordFailure(): Promise<void> {
      await Promise.all(
        keys.map(async (key) => {
          const now = Date.now();
          const current = (await read(key)) ?? { count: 0, resetAt: now + WINDOW_MS };
          const next: Failures = { count: current.count + 1, resetAt: current.resetAt };
          // KV needs a TTL of at least 60 s.
          const ttl = Math.max(60, Math.ceil((next.resetAt - now) / 1000));
          await kv.put(key, JSON.stringify(next), { expirationTtl: ttl });
        }),
      );
    },
  };
}
