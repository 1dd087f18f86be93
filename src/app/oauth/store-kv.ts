/**
 * A `KVNamespace`-shaped view of {@link OAuthStore}, covering what
 * `@cloudflare/workers-oauth-provider` uses: `get` (text or json), `put` (with `expirationTtl`
 * or `expiration`), `delete` and `list` (`prefix`, `cursor`, `limit`).
 *
 * Does not do: metadata, `getWithMetadata`, streams or bulk reads; they throw.
 */
import type { OAuthStore } from "./oauth-store";
import { CodeModeError } from "../../errors";

/**
 * Wraps the store's single instance as a KV namespace.
 * @param namespace - the `OAUTH_STORE` binding
 */
export function storeKv(namespace: DurableObjectNamespace<OAuthStore>): KVNamespace {
  const stub = () => namespace.get(namespace.idFromName("oauth"));
  const kv = {
    async get(key: string, options?: unknown) {
      const value = await stub().kvGet(key);
      if (value === null) return null;
      const type = typeof options === "string" ? options : (options as { type?: string })?.type;
      return type === "json" ? JSON.parse(value) : value;
    },
    async put(
      key: string,
      value: string,
      options?: { expirationTtl?: number; expiration?: number },
    ) {
      const expiresAt = options?.expirationTtl
        ? Date.now() + options.expirationTtl * 1000
        : options?.expiration
          ? options.expiration * 1000
          : null;
      await stub().kvPut(key, String(value), expiresAt);
    },
    async delete(key: string) {
      await stub().kvDelete(key);
    },
    async list(options?: { prefix?: string; cursor?: string; limit?: number }) {
      return stub().kvList(options?.prefix ?? "", options?.cursor ?? null, options?.limit ?? 1000);
    },
    getWithMetadata() {
      throw new CodeModeError("not_supported", "storeKv: getWithMetadata is not supported");
    },
  };
  return kv as unknown as KVNamespace;
}
