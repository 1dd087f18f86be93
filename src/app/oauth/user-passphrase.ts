/**
 * A user name on the consent page is bound to a passphrase of its own: the first grant for a
 * name sets it, every later grant for that name must present it. Without this, anyone holding
 * the owner's `OAUTH_PASSWORD` could sign in as any user and reach that user's skills, runs and
 * tasks (docs/security.md, "OAuth users under one passphrase").
 *
 * Storage: one key per user in the `OAuthStore` Durable Object (instance `oauth`, also with
 * `OAUTH_KV` bound), `user-passphrase:<user id>` → `{ salt, hash }` (PBKDF2-SHA-256, 100,000
 * iterations, base64), never expiring, claimed with `kvPutIfAbsent`. A read, a hash and a write
 * (as over KV before) let two first sign-ins racing for a new name both get a grant as that
 * user, and over `OAUTH_KV` a write is seen elsewhere only up to 60 s later, so the race was
 * open for a minute after a user's first sign-in: one claim, one winner, the other's
 * passphrase is then checked like any later one.
 *
 * Does not do: reset a forgotten passphrase (the operator deletes the key).
 */
import type { OAuthStore } from "./oauth-store";

const ITERATIONS = 100_000;

/** Shortest passphrase a first sign-in may set. */
export const MIN_USER_PASSPHRASE = 8;

/** What a check found. */
export type UserPassphraseCheck = "matches" | "set" | "wrong" | "too_short";

/** A user's kept passphrase. */
interface Kept {
  salt: string;
  hash: string;
}

/**
 * Checks `sent` against the user's passphrase, setting it on the user's first grant.
 * @param store - the `OAUTH_STORE` binding
 * @param userId - the user id the grant will carry
 * @param sent - the passphrase from the form
 */
export async function checkUserPassphrase(
  store: DurableObjectNamespace<OAuthStore>,
  userId: string,
  sent: string,
): Promise<UserPassphraseCheck> {
  const stub = store.get(store.idFromName("oauth"));
  const key = `user-passphrase:${userId}`;
  const read = async () => {
    const value = await stub.kvGet(key);
    return value === null ? null : (JSON.parse(value) as Kept);
  };
  const kept = await read();
  if (kept) return (await same(sent, kept)) ? "matches" : "wrong";
  if (sent.length < MIN_USER_PASSPHRASE) return "too_short";
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(sent, salt);
  const value = JSON.stringify({ salt: toBase64(salt), hash: toBase64(new Uint8Array(hash)) });
  if (await stub.kvPutIfAbsent(key, value)) return "set";
  // Another first sign-in claimed the name meanwhile: its passphrase is the name's now.
  const claimed = await read();
  return claimed && (await same(sent, claimed)) ? "matches" : "wrong";
}

async function same(sent: string, kept: Kept): Promise<boolean> {
  const hash = await derive(sent, fromBase64(kept.salt));
  const expected = fromBase64(kept.hash);
  return hash.byteLength === expected.byteLength && crypto.subtle.timingSafeEqual(hash, expected);
}

async function derive(passphrase: string, salt: Uint8Array): Promise<ArrayBuffer> {
  const material = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(passphrase),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  return crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations: ITERATIONS },
    material,
    256,
  );
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
