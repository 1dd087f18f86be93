/**
 * Stable worker code as text, for the one place it crosses outside Workers RPC: the local
 * server's supervisor copies the shared worker's code from a runner that holds it to a runner it
 * has just started (src/runner.ts, `GET /stable` and `POST /warm`), so the fresh runner loads the
 * engine before any run needs it. JSON, with binary module content (Wasm, data) as base64 under
 * {@link BYTES_KEY}; the receiving runner keys the code by its own hash (code-hash.ts), so the
 * text names nothing by itself.
 */

/** The key of a binary value's base64 in the text (no module field has this name). */
export const BYTES_KEY = "\u0000bytes";

/** The code as text (see the module comment). */
export function encodeCode(code: unknown): string {
  return JSON.stringify(code, (_key, value: unknown) => {
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
      const bytes = ArrayBuffer.isView(value)
        ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
        : new Uint8Array(value);
      let binary = "";
      // In slices: one call with every byte as an argument overflows the stack.
      for (let i = 0; i < bytes.length; i += 0x8000)
        binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return { [BYTES_KEY]: btoa(binary) };
    }
    return value;
  });
}

/**
 * The code back from {@link encodeCode}'s text, binary content as `ArrayBuffer`s.
 * @throws SyntaxError when the text is not JSON
 */
export function decodeCode(text: string): WorkerLoaderWorkerCode {
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === "object" && value !== null && BYTES_KEY in value) {
      const binary = atob(String((value as Record<string, unknown>)[BYTES_KEY]));
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      return bytes.buffer;
    }
    return value;
  }) as WorkerLoaderWorkerCode;
}
