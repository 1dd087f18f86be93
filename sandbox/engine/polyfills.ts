/**
 * Web APIs the WebAssembly engine lacks and the sandbox modules (or common model code) use:
 * UTF-8 `TextEncoder` and `TextDecoder`, and `btoa`/`atob`. Imported first by guest.ts, so they exist before
 * any other sandbox module loads; a fresh engine context gets fresh copies every run.
 */
const g = globalThis as unknown as Record<string, unknown>;

/**
 * The runner's native UTF-8 decoder (`__cm$utf8(buffer, offset, length)`), taken and deleted
 * before any other module loads. Decoding a spec's 500 KB index in interpreted code took about
 * 90 ms per run; natively it is about a millisecond. Small inputs stay in the interpreter: the
 * native call copies the whole underlying buffer out of the engine's memory.
 */
const nativeUtf8 = g["__cm$utf8"] as
  | ((buffer: ArrayBuffer, offset: number, length: number) => string)
  | undefined;
delete g["__cm$utf8"];
/** Inputs at least this long are decoded natively. */
const NATIVE_DECODE_BYTES = 16_384;
// Captured at load: the sandbox charges a program's own typed-array constructions
// (native-charges.ts); `encode` is charged by its text already, `decode` reads views.
const Bytes = Uint8Array;

/** UTF-8 bytes of a string (lone surrogates become U+FFFD, as the Web API does). */
function encode(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else c = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else
      out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return new Bytes(out);
}

/** A string from UTF-8 bytes (malformed sequences become U+FFFD). */
function decode(input?: ArrayBuffer | ArrayBufferView): string {
  if (input === undefined) return "";
  if (nativeUtf8 && input.byteLength >= NATIVE_DECODE_BYTES) {
    return ArrayBuffer.isView(input)
      ? nativeUtf8(input.buffer as ArrayBuffer, input.byteOffset, input.byteLength)
      : nativeUtf8(input, 0, input.byteLength);
  }
  const bytes = ArrayBuffer.isView(input)
    ? new Bytes(input.buffer, input.byteOffset, input.byteLength)
    : new Bytes(input);
  // Code units are gathered in chunks and turned into text by one native call per chunk: in an
  // interpreter, one string concatenation per character would dominate a spec's decoding.
  const parts: string[] = [];
  const units: number[] = [];
  const flush = (): void => {
    parts.push(String.fromCharCode.apply(null, units));
    units.length = 0;
  };
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i++]!;
    if (b < 0x80) {
      units.push(b);
    } else {
      let c = 0xfffd;
      const need = b >= 0xf0 && b < 0xf8 ? 3 : b >= 0xe0 ? 2 : b >= 0xc0 ? 1 : -1;
      if (need > 0 && i + need <= bytes.length) {
        c = b & (0x3f >> need);
        for (let k = 0; k < need; k++) c = (c << 6) | (bytes[i++]! & 63);
      }
      if (c > 0x10ffff) c = 0xfffd;
      if (c >= 0x10000) units.push(0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 1023));
      else units.push(c);
    }
    if (units.length >= 8192) flush();
  }
  flush();
  return parts.join("");
}

if (typeof g["TextEncoder"] !== "function") {
  g["TextEncoder"] = class TextEncoder {
    readonly encoding = "utf-8";
    encode(text = ""): Uint8Array {
      return encode(String(text));
    }
  };
}
if (typeof g["TextDecoder"] !== "function") {
  g["TextDecoder"] = class TextDecoder {
    readonly encoding = "utf-8";
    decode(input?: ArrayBuffer | ArrayBufferView): string {
      return decode(input);
    }
  };
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The error the Web APIs throw (a DOMException named InvalidCharacterError in V8). */
function invalid(message: string): Error {
  const error = new Error(message);
  error.name = "InvalidCharacterError";
  return error;
}

/** Base64 of a binary string (each char one byte), as the Web's `btoa`. */
function toBase64(input: unknown): string {
  const text = String(input);
  let out = "";
  for (let i = 0; i < text.length; i += 3) {
    const a = text.charCodeAt(i);
    const b = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    const c = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
    if (a > 255 || b > 255 || c > 255)
      throw invalid(
        "btoa: the string has characters outside Latin-1; encode it as UTF-8 bytes first.",
      );
    const n = (a << 16) | (b << 8) | c;
    out += BASE64[n >> 18]! + BASE64[(n >> 12) & 63]!;
    out += i + 1 < text.length ? BASE64[(n >> 6) & 63]! : "=";
    out += i + 2 < text.length ? BASE64[n & 63]! : "=";
  }
  return out;
}

/** The binary string of Base64 text, as the Web's `atob` (whitespace ignored). */
function fromBase64(input: unknown): string {
  let text = String(input).replace(/[\t\n\f\r ]+/g, "");
  if (text.length % 4 === 0) text = text.replace(/==?$/, "");
  if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text))
    throw invalid("atob: the string is not valid Base64.");
  let out = "";
  let bits = 0;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    value = (value << 6) | BASE64.indexOf(text[i]!);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((value >> bits) & 255);
    }
  }
  return out;
}

if (typeof g["btoa"] !== "function") g["btoa"] = toBase64;
if (typeof g["atob"] !== "function") g["atob"] = fromBase64;

/** Names of the Web APIs this module provides when the engine lacks them. */
export const POLYFILLS: readonly string[] = ["TextEncoder", "TextDecoder", "btoa", "atob"];
