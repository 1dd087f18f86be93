/**
 * `OAuthStore`: a key-value store in a Durable Object's SQLite for the OAuth provider's clients,
 * grants and tokens, used when `OAUTH=on` and no `OAUTH_KV` namespace is bound, so OAuth works
 * with `npm start` and a plain deploy without creating a KV namespace.
 *
 * Key layout: the provider's own keys (`client:…`, `grant:…`, `token:…`), one row each in
 * `kv(key PRIMARY KEY, value, expires_at)`; `expires_at` is epoch milliseconds or NULL. Expired
 * rows read as absent and are deleted when touched. One instance (named `oauth`) serves the
 * Worker: every read is a round trip to it, which is fine for token checks at MCP request rates.
 */
import { DurableObject } from "cloudflare:workers";

/** One listed key. */
export interface ListedKey {
  name: string;
  expiration?: number;
}

/** The OAuth provider's storage, as RPC methods. */
export class OAuthStore extends DurableObject<Cloudflare.Env> {
  private ready = false;

  private sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.ready) {
      sql.exec(
        "CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER)",
      );
      this.ready = true;
    }
    return sql;
  }

  /** The value of `key`, or null when absent or expired. */
  kvGet(key: string): string | null {
    const row = this.sql().exec("SELECT value, expires_at FROM kv WHERE key = ?", key).toArray()[0];
    if (!row) return null;
    if (row.expires_at !== null && Number(row.expires_at) <= Date.now()) {
      this.sql().exec("DELETE FROM kv WHERE key = ?", key);
      return null;
    }
    return String(row.value);
  }

  /** Stores `value`; `expiresAt` in epoch milliseconds. */
  kvPut(key: string, value: string, expiresAt: number | null): void {
    this.sql().exec(
      "INSERT OR REPLACE INTO kv (key, value, expires_at) VALUES (?, ?, ?)",
      key,
      value,
      expiresAt,
    );
  }

  /**
   * Stores `value` under `key` only when the key is absent (or expired), in one step no other
   * call interleaves with: a claim two requests race for has one winner.
   * @returns whether this call stored it
   */
  kvPutIfAbsent(key: string, value: string): boolean {
    if (this.kvGet(key) !== null) return false;
    this.kvPut(key, value, null);
    return true;
  }

  kvDelete(key: string): void {
    this.sql().exec("DELETE FROM kv WHERE key = ?", key);
  }

  /**
   * One attempt against the counters `keys`, in one step no other call interleaves with (a
   * Durable Object runs one synchronous method at a time): when any counter has reached `max`
   * within its window, the attempt is refused and nothing is counted; else every counter is
   * counted up first, so a burst of attempts is counted as they come, not after they were
   * checked. Counters are `{ count, resetAt }` rows of the same table, expiring with their window.
   * @param keys - the counters (per client, per address)
   * @param max - attempts allowed per window
   * @param windowMs - the window, from a counter's first attempt
   * @returns `waitMs` 0 when the attempt may go ahead, else how long until it may
   */
  countAttempt(keys: string[], max: number, windowMs: number): { waitMs: number } {
    const now = Date.now();
    const counters = keys.map((key) => ({ key, ...this.counter(key, now) }));
    const full = counters.filter((c) => c.count >= max);
    if (full.length > 0) return { waitMs: Math.max(1, ...full.map((c) => c.resetAt - now)) };
    for (const c of counters) {
      const resetAt = c.count === 0 ? now + windowMs : c.resetAt;
      this.kvPut(c.key, JSON.stringify({ count: c.count + 1, resetAt }), resetAt);
    }
    return { waitMs: 0 };
  }

  /**
   * Takes back one attempt {@link countAttempt} counted, for one that succeeded: the owner's
   * right passphrase does not use up the window's budget.
   * @param keys - the counters counted
   */
  uncountAttempt(keys: string[]): void {
    const now = Date.now();
    for (const key of keys) {
      const { count, resetAt } = this.counter(key, now);
      if (count > 0) this.kvPut(key, JSON.stringify({ count: count - 1, resetAt }), resetAt);
    }
  }

  /** A counter's state; an absent, expired or unreadable one is empty. */
  private counter(key: string, now: number): { count: number; resetAt: number } {
    const value = this.kvGet(key);
    try {
      const parsed = value === null ? null : (JSON.parse(value) as Record<string, unknown>);
      const count = Number(parsed?.count);
      const resetAt = Number(parsed?.resetAt);
      if (Number.isFinite(count) && Number.isFinite(resetAt) && resetAt > now)
        return { count, resetAt };
    } catch {
      // unreadable: empty
    }
    return { count: 0, resetAt: now };
  }

  /** Keys starting with `prefix`, in order, after `cursor` (the last key of the previous page). */
  kvList(
    prefix: string,
    cursor: string | null,
    limit: number,
  ): { keys: ListedKey[]; list_complete: boolean; cursor?: string } {
    const rows = this.sql()
      .exec(
        "SELECT key, expires_at FROM kv WHERE substr(key, 1, ?) = ? AND key > ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY key LIMIT ?",
        prefix.length,
        prefix,
        cursor ?? "",
        Date.now(),
        limit + 1,
      )
      .toArray();
    const page = rows.slice(0, limit);
    const keys = page.map((r) => ({
      name: String(r.key),
      ...(r.expires_at === null ? {} : { expiration: Math.floor(Number(r.expires_at) / 1000) }),
    }));
    return rows.length > limit
      ? { keys, list_complete: false, cursor: keys[keys.length - 1]!.name }
      : { keys, list_complete: true };
  }
}
