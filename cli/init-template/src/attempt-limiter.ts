// Limits wrong passphrases on the consent page (src/consent.ts), per client and per address, so
// the owner's passphrase cannot be guessed at request speed: after MAX_FAILURES wrong ones within
// WINDOW_MS, the form is refused (429 with Retry-After) without checking the passphrase, so a
// locked-out guess teaches nothing. The counts live in OAUTH_KV under `consent-failures:…` and
// expire with their window. The address is CF-Connecting-IP, which Cloudflare sets and a client
// cannot; without it (`npm run dev`) every caller shares one address.
//
// Not atomic: guesses sent at the same instant may all be checked before any is counted, so a
// burst can pass the limit by its concurrency.

/** Wrong passphrases allowed per client and per address within one window. */
export const MAX_FAILURES = 5;
/** The window, in milliseconds (15 minutes). */
export const WINDOW_MS = 15 * 60_000;

interface Failures {
  count: number;
  resetAt: number;
}

/**
 * The limiter for one consent request.
 * @param kv - where the counts live (OAUTH_KV)
 * @param clientId - the OAuth client asking
 * @param request - the consent request (its CF-Connecting-IP)
 * @param now - the clock (tests pass their own)
 */
export function consentAttempts(
  kv: Pick<KVNamespace, "get" | "put">,
  clientId: string,
  request: Request,
  now: () => number = Date.now,
) {
  const address = request.headers.get("cf-connecting-ip") ?? "unknown";
  const keys = [
    `consent-failures:client:${clientId.slice(0, 200)}`,
    `consent-failures:addr:${address.slice(0, 64)}`,
  ];
  const read = async (key: string): Promise<Failures | undefined> => {
    const value = await kv.get<Failures>(key, "json");
    return value && value.resetAt > now() ? value : undefined;
  };
  return {
    /** Seconds until guessing is allowed again; 0 when it is allowed now. */
    async lockedForSeconds(): Promise<number> {
      const locked = (await Promise.all(keys.map(read))).filter(
        (f): f is Failures => f !== undefined && f.count >= MAX_FAILURES,
      );
      if (locked.length === 0) return 0;
      const until = Math.max(...locked.map((f) => f.resetAt));
      return Math.max(1, Math.ceil((until - now()) / 1000));
    },
    /** Counts one wrong passphrase against the client and the address. */
    async recordFailure(): Promise<void> {
      await Promise.all(
        keys.map(async (key) => {
          const current = (await read(key)) ?? { count: 0, resetAt: now() + WINDOW_MS };
          const next: Failures = { count: current.count + 1, resetAt: current.resetAt };
          // KV keeps a key at least 60 s.
          const ttl = Math.max(60, Math.ceil((next.resetAt - now()) / 1000));
          await kv.put(key, JSON.stringify(next), { expirationTtl: ttl });
        }),
      );
    },
  };
}
