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

  kvDelete(key: string): void {
    this.sql().exec("DELETE FROM kv WHERE key = ?", key);
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
