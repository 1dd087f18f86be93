// Limits wrong passphrases on the consent page (src/consent.ts), per client and per address, so
// the owner's passphrase cannot be guessed at request speed: after MAX_FAILURES wrong ones within
// WINDOW_MS, the form is refused (429 with Retry-After) without checking the passphrase, so a
// locked-out guess teaches nothing. The address is CF-Connecting-IP, which Cloudflare sets and a
// client cannot; an IPv6 address counts by its /64 (see addressKey); without it (`npm run dev`)
// every caller shares one address.
//
// The counts live in a Durable Object (one instance), because it runs one call at a time: an
// attempt is counted BEFORE its passphrase is checked, in the same step that reads the count,
// and taken back when the passphrase was right. Counted after the check (or over KV, whose read
// and write are separate), a burst of guesses sent at once would all be checked.
import { DurableObject } from "cloudflare:workers";

/** Wrong passphrases allowed per client and per address within one window. */
export const MAX_FAILURES = 5;
/** The window, in milliseconds (15 minutes), from a counter's first attempt. */
export const WINDOW_MS = 15 * 60_000;

/** The counters: `{ count, resetAt }` per key, in the object's SQLite storage. */
export class ConsentAttempts extends DurableObject<Cloudflare.Env> {
  private ready = false;

  private counter(key: string, now: number): { count: number; resetAt: number } {
    const sql = this.ctx.storage.sql;
    if (!this.ready) {
      sql.exec(
        "CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, count INTEGER, reset_at INTEGER)",
      );
      // Old windows are of no use: drop them as new attempts come.
      sql.exec("DELETE FROM counters WHERE reset_at <= ?", now);
      this.ready = true;
    }
    const row = sql.exec("SELECT count, reset_at FROM counters WHERE key = ?", key).toArray()[0];
    const resetAt = Number(row?.reset_at ?? 0);
    return row && resetAt > now ? { count: Number(row.count), resetAt } : { count: 0, resetAt: 0 };
  }

  private store(key: string, count: number, resetAt: number): void {
    this.ctx.storage.sql.exec(
      "INSERT OR REPLACE INTO counters (key, count, reset_at) VALUES (?, ?, ?)",
      key,
      count,
      resetAt,
    );
  }

  /**
   * Counts one attempt against `keys`, or refuses it when any of them is full.
   * @returns milliseconds until an attempt may be made again; 0 when this one may be checked
   */
  count(keys: string[]): number {
    const now = Date.now();
    const counters = keys.map((key) => ({ key, ...this.counter(key, now) }));
    const full = counters.filter((c) => c.count >= MAX_FAILURES);
    if (full.length > 0) return Math.max(1, ...full.map((c) => c.resetAt - now));
    for (const c of counters)
      this.store(c.key, c.count + 1, c.count === 0 ? now + WINDOW_MS : c.resetAt);
    return 0;
  }

  /**
   * Counts one event against `key`, at most `max` within `windowMs` (src/registration-limit.ts).
   * @returns milliseconds until one may be counted again; 0 when this one was counted
   */
  countWithin(key: string, max: number, windowMs: number): number {
    const now = Date.now();
    const { count, resetAt } = this.counter(key, now);
    if (count >= max) return Math.max(1, resetAt - now);
    this.store(key, count + 1, count === 0 ? now + windowMs : resetAt);
    return 0;
  }

  /** Takes back an attempt {@link count} counted: its passphrase was right. */
  uncount(keys: string[]): void {
    const now = Date.now();
    for (const key of keys) {
      const { count, resetAt } = this.counter(key, now);
      if (count > 0) this.store(key, count - 1, resetAt);
    }
  }
}

/**
 * The address a consent attempt is counted against: an IPv4 address as it is, an IPv6 one by its
 * /64 prefix. One IPv6 host usually holds a whole /64 (a cloud VM gets 2^64 addresses), so
 * counted per full address, an attacker who registers a new client per guess and sends each from
 * another address of its /64 had every guess checked: no limit at all. An IPv4 address mapped
 * into IPv6 (`::ffff:192.0.2.1`) counts as the IPv4 address.
 * @param address - `CF-Connecting-IP` (absent: "unknown", shared by all)
 */
export function addressKey(address: string): string {
  const ip = address.trim().toLowerCase().split("%")[0]!;
  if (!ip.includes(":")) return ip.slice(0, 64);
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = ip.split("::", 2);
  const groups = head === "" ? [] : head.split(":");
  if (tail !== undefined) {
    const rest = tail === "" ? [] : tail.split(":");
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - rest.length)).fill("0"), ...rest);
  }
  const prefix = groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, "").slice(0, 4));
  return `${prefix.join(":")}::/64`;
}

/**
 * The limiter for one consent request.
 * @param namespace - the CONSENT_ATTEMPTS binding
 * @param clientId - the OAuth client asking
 * @param request - the consent request (its CF-Connecting-IP)
 */
export function consentAttempts(
  namespace: DurableObjectNamespace<ConsentAttempts>,
  clientId: string,
  request: Request,
) {
  const address = addressKey(request.headers.get("cf-connecting-ip") ?? "unknown");
  const keys = [`client:${clientId.slice(0, 200)}`, `addr:${address}`];
  const counters = () => namespace.get(namespace.idFromName("consent"));
  return {
    /** Counts this attempt: seconds to wait before trying again, or 0 to check it now. */
    async begin(): Promise<number> {
      const waitMs = await counters().count(keys);
      return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
    },
    /** Takes this attempt back: the passphrase was right. */
    async succeeded(): Promise<void> {
      await counters().uncount(keys);
    },
  };
}
