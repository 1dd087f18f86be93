/**
 * A user name on the consent page is bound to a passphrase of its own: the first grant for a
 * name sets it, every later grant for that name must present it. Without this, anyone holding
 * the owner's `OAUTH_PASSWORD` could sign in as any user and reach that user's skills, runs and
 * tasks (docs/security.md, "OAuth users under one passphrase").
 *
 * Storage: one key per user in the OAuth provider's KV (`OAUTH_KV`, or the `OAuthStore` view of
 * it), `user-passphrase:<user id>` → `{ salt, hash }` (PBKDF2-SHA-256, 100,000 iterations,
 * base64), never expiring. The provider's own keys are `client:`, `grant:` and `token:`.
 *
 * Does not do: reset a forgotten passphrase (the operator deletes the key), or stop two first
 * sign-ins for one new name racing (both need `OAUTH_PASSWORD`; the last write wins).
 */
const ITERATIONS = 100_000;

/** Shortest passphrase a first sign-in may set. */
export const MIN_USER_PASSPHRASE = 8;

/** What a check found. */
export type UserPassphraseCheck = "matches" | "set" | "wrong" | "too_short";

/**
 * Checks `sent` against the user's passphrase, setting it on the user's first grant.
 * @param kv - the OAuth provider's KV
 * @param userId - the user id the grant will carry
 * @param sent - the passphrase from the form
 */
export async function checkUserPassphrase(
  kv: KVNamespace,
  userId: string,
  sent: string,
): Promise<UserPassphraseCheck> {
  const key = `user-passphrase:${userId}`;
  const kept = (await kv.get(key, "json")) as { salt: string; hash: string } | null;
  if (kept) {
    const hash = await derive(sent, fromBase64(kept.salt));
    const expected = fromBase64(kept.hash);
    return hash.byteLength === expected.byteLength && crypto.subtle.timingSafeEqual(hash, expected)
      ? "matches"
      : "wrong";
  }
  if (sent.length < MIN_USER_PASSPHRASE) return "too_short";
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(sent, salt);
  await kv.put(key, JSON.stringify({ salt: toBase64(salt), hash: toBase64(new Uint8Array(hash)) }));
  return "set";
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
