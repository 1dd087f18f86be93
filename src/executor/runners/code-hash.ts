/**
 * The name a stable worker's code goes by between the host and a sandbox runner: the SHA-256 of
 * the code itself. The host names the code by its hash in every `get` (runner-loader.ts), and a
 * runner keeps code only under the hash it computed itself (sandbox-runner.ts), so what runs
 * under a name is always the code that the name was made from: no caller can place other code
 * under the shared worker's name, which every client's runs would then reach.
 */

const encoder = new TextEncoder();

/**
 * The SHA-256 (hex) of loader code, over a canonical form of it: object keys in sorted order,
 * strings as JSON, binary module content (Wasm, data) by its bytes, so the same code gives the
 * same hash on both sides of Workers RPC. Anything that is not data (a stub, a function) counts by
 * its kind only: stable code carries none (its `env` is empty).
 * @param code - the loader code (`WorkerLoaderWorkerCode`)
 */
export async function codeHash(code: unknown): Promise<string> {
  const parts: Uint8Array[] = [];
  const text = (value: string) => parts.push(encoder.encode(value));
  const walk = (value: unknown): void => {
    if (typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0))) {
      // JSON reads NaN and ±Infinity as `null` and -0 as `0`: named apart here, or two codes
      // differing only there would share a name.
      text(`#${Object.is(value, -0) ? "-0" : String(value)}`);
    } else if (value === null || ["string", "number", "boolean"].includes(typeof value)) {
      text(JSON.stringify(value));
    } else if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
      const bytes = ArrayBuffer.isView(value)
        ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
        : new Uint8Array(value);
      // Its length first: the bytes that follow cannot be read as anything else.
      text(`<${bytes.byteLength}>`);
      parts.push(bytes);
    } else if (Array.isArray(value)) {
      text("[");
      for (const item of value) {
        walk(item);
        text(",");
      }
      text("]");
    } else if (typeof value === "object") {
      text("{");
      for (const key of Object.keys(value as object).toSorted()) {
        text(`${JSON.stringify(key)}:`);
        walk((value as Record<string, unknown>)[key]);
        text(",");
      }
      text("}");
    } else text(`?${typeof value}`);
  };
  walk(code);
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.byteLength;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", whole));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
