/**
 * Limits wrong passphrases on the OAuth consent page, per client and per address, so the owner's
 * passphrase cannot be guessed at request speed (50 guesses in 2 s were possible before).
 *
 * Storage: the `OAuthStore` Durable Object (one instance, `oauth`), whatever holds the provider's
 * grants: its `countAttempt` reads and counts in one step no other request interleaves with.
 * Counters `consent-failures:client:<clientId>` and `consent-failures:addr:<ip>` hold
 * `{ count, resetAt }` and expire with their window.
 *
 * Security defaults: an attempt is counted BEFORE its passphrase is checked, and taken back when
 * the passphrase was right. Once either counter reaches {@link MAX_FAILURES} within
 * {@link WINDOW_MS}, the form is refused (`429` with `Retry-After`) without checking the
 * passphrase, so locked-out guesses teach nothing. Counting after the check (as before, over
 * KV's separate get and put) let a burst sent at once be checked whole: 30 of 30 through the
 * local server's front (issue #40). The address is `CF-Connecting-IP`, which Cloudflare sets and
 * a client cannot (the local server's front replaces a client's own), an IPv6 one by its /64
 * ({@link addressKey}); without it all callers share one address, which makes the address limit
 * a global one there.
 *
 * Does not do: stop an attacker who registers new clients from many real addresses (each pair
 * gets its own budget).
 */
import { addressKey } from "./address-key";
import type { OAuthStore } from "./oauth-store";

/** Wrong passphrases allowed per client and per address within one window. */
export const MAX_FAILURES = 5;
/** Length of the window in milliseconds (15 minutes). */
export const WINDOW_MS = 15 * 60_000;

/**
 * The attempt limiter for one consent request.
 * @param store - the `OAUTH_STORE` binding
 * @param clientId - the OAuth client asking
 * @param request - the consent page request (its `CF-Connecting-IP`)
 */
export function consentAttempts(
  store: DurableObjectNamespace<OAuthStore>,
  clientId: string,
  request: Request,
) {
  const address = addressKey(request.headers.get("cf-connecting-ip") ?? "unknown");
  const keys = [
    `consent-failures:client:${clientId.slice(0, 200)}`,
    `consent-failures:addr:${address}`,
  ];
  const stub = () => store.get(store.idFromName("oauth"));
  return {
    /**
     * Counts this attempt, or refuses it.
     * @returns seconds until guessing is allowed again, or 0 when this attempt may be checked
     */
    async begin(): Promise<number> {
      const { waitMs } = await stub().countAttempt(keys, MAX_FAILURES, WINDOW_MS);
      return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
    },
    /** Takes this attempt back: the passphrase was right. */
    async succeeded(): Promise<void> {
      await stub().uncountAttempt(keys);
    },
  };
}
