/**
 * Content keys for large extension data of the shared-worker executor: the shared worker keeps
 * such data once (sandbox/engine/data-cache.ts) and a run sends only its key. The key is the
 * SHA-256 of the content, so every host isolate of a deployment names the same spec the same
 * way and the worker stores it once; it is computed once per data object (bytes) or per recent
 * text.
 */

/** Data below this size travels with every run (keying it would cost more than it saves). */
export const KEYED_DATA_BYTES = 64 * 1024;

const byBytes = new WeakMap<Uint8Array, Promise<string>>();
const byText = new Map<string, Promise<string>>();
/** Texts remembered (the compact-spec fallback form is one text per server). */
const MAX_TEXTS = 8;

/**
 * The content key of extension data, or `undefined` for data small enough to send every run.
 * Bytes are assumed not to change after their first run (a packed spec is built once and never
 * written; see src/openapi/spec-pack.ts).
 * @param data - an extension's data
 */
export function dataKey(data: string | Uint8Array): Promise<string> | undefined {
  if (typeof data === "string") {
    if (data.length * 3 < KEYED_DATA_BYTES) return undefined;
    let key = byText.get(data);
    if (!key) {
      key = digest(new TextEncoder().encode(data), "t");
      byText.set(data, key);
      if (byText.size > MAX_TEXTS) byText.delete(byText.keys().next().value as string);
    }
    return key;
  }
  if (data.byteLength < KEYED_DATA_BYTES) return undefined;
  let key = byBytes.get(data);
  if (!key) {
    key = digest(data, "b");
    byBytes.set(data, key);
  }
  return key;
}

async function digest(bytes: Uint8Array, kind: "t" | "b"): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of hash) hex += byte.toString(16).padStart(2, "0");
  return `${kind}:${bytes.byteLength}:${hex}`;
}
