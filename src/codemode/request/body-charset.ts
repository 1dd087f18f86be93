/**
 * The text of a response body in its declared charset, for redaction and for the program. What
 * `TextDecoder` reads (the WHATWG encodings) it reads; UTF-32, which it does not, is decoded here
 * (with or without a byte order mark), so the program gets text and redaction sees it as text.
 * Charsets that spell ASCII with other bytes and that nothing here decodes (UTF-7, EBCDIC code
 * pages) make the body unreadable: redaction could not see a credential in it, and the program
 * could decode it itself, so the caller withholds it. Any other unknown label reads as UTF-8,
 * like a body without one.
 */

/** A body read as text, or the reason it cannot be. */
export type BodyText =
  | {
      kind: "text";
      text: string;
      /** The text is the bytes one character per byte. */
      sameAsBytes: boolean;
    }
  | { kind: "unreadable"; reason: string };

const UNREADABLE =
  /^(?:utf-?7|x-utf-?7|unicode-1-1-utf-7|.*ebcdic.*|(?:cp|ibm)-?0*(?:37|273|277|278|280|284|285|297|420|424|500|870|871|875|1025|1026|1047|1140|1141|1142|1143|1144|1145|1146|1147|1148|1149))$/i;

/**
 * Decodes a body with the charset its `Content-Type` declares.
 * @param bytes - the body (already redacted as bytes)
 * @param contentType - the `Content-Type` header value
 * @param ascii - the bytes as text when they are all ASCII ({@link asciiText}), if known: used
 *   as is when the charset reads ASCII as itself, instead of decoding again
 */
export function decodeBody(bytes: Uint8Array, contentType: string, ascii?: string): BodyText {
  const label = bodyLabel(bytes, contentType);
  if (
    ascii !== undefined &&
    ascii.length === bytes.byteLength &&
    (label === undefined || ASCII_AS_ITSELF.test(label))
  )
    return { kind: "text", text: ascii, sameAsBytes: true };
  let text: string;
  if (label !== undefined && UTF32.test(label)) text = utf32(bytes, label);
  else if (label !== undefined && UNREADABLE.test(label))
    return {
      kind: "unreadable",
      reason: `its declared charset (${label}) spells text with other bytes than ASCII and cannot be decoded here, so it cannot be checked for credentials`,
    };
  else text = decodeWith(label, bytes);
  // ASCII bytes in an ASCII-compatible charset read as themselves: no second search needed.
  const sameAsBytes =
    text.length === bytes.length &&
    (label === undefined || !/^(?:utf-?16|ucs-?2|utf-?32|ucs-?4)/.test(label)) &&
    !/[^\0-\x7f]/.test(text);
  return { kind: "text", text, sameAsBytes };
}

/**
 * The text {@link decodeBody} reads from a body when it reads it as UTF-8 (a byte order mark of
 * UTF-8, a UTF-8 charset, none, or a label `TextDecoder` does not know) and every byte sequence
 * in it is well-formed UTF-8; else undefined. Such text is exactly the bytes' UTF-8 reading that
 * the byte search makes (../redaction/decoding/utf8-bytes-view.ts) but for a leading byte order
 * mark, which no form of a secret holds: the caller that searches this text may skip that
 * reading. Not for another charset (latin1 shows UTF-8 as mojibake, which a program can encode
 * back to the bytes and read as UTF-8), nor for an invalid sequence (the text holds U+FFFD where
 * the reading holds the byte as windows-1252 reads it, e.g. a soft hyphen the search drops).
 * @param bytes - the body
 * @param contentType - the `Content-Type` header value
 * @param reading - {@link utf8Reading} of these very bytes, if made: its text is used instead of
 *   decoding them again
 */
export function wellFormedUtf8Text(
  bytes: Uint8Array,
  contentType: string,
  reading?: Utf8Reading,
): string | undefined {
  if (!decodedAsUtf8(bodyLabel(bytes, contentType))) return undefined;
  // The reading made for the ASCII check is this very decode (same bytes, same strict decoder):
  // a 4 MB CJK body was decoded twice here, ~15 % of its redaction.
  if (reading?.decoded) return reading.text;
  try {
    return strictUtf8Decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether {@link decodeBody} reads a body of this charset label with the UTF-8 decoder. */
function decodedAsUtf8(label: string | undefined): boolean {
  if (label === undefined) return true;
  if (UTF32.test(label) || UNREADABLE.test(label)) return false;
  try {
    return new TextDecoder(label).encoding === "utf-8";
  } catch {
    // an unknown label: decodeBody reads it as UTF-8
    return true;
  }
}

// Like decodeWith's decoder (the byte order mark dropped), but throwing on an invalid sequence.
const strictUtf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const UTF32 = /^(?:utf-?32(?:le|be)?|ucs-?4)$/;

/** The charset a body is decoded with: its byte order mark's, else the declared one, if any. */
function bodyLabel(bytes: Uint8Array, contentType: string): string | undefined {
  return bomLabel(bytes) ?? /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase();
}

/**
 * An all-ASCII body's text as {@link decodeBody} would read it, without its bytes: the text
 * itself when the declared charset reads ASCII as itself (no byte order mark can be ASCII),
 * else undefined (then the caller decodes the bytes).
 * @param ascii - the body's bytes as ASCII text ({@link asciiText})
 * @param contentType - the `Content-Type` header value
 */
export function asciiBodyText(ascii: string, contentType: string): string | undefined {
  const label = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase();
  return label === undefined || ASCII_AS_ITSELF.test(label) ? ascii : undefined;
}

/** Charsets that read every ASCII byte as that character (the common ones; others decode). */
const ASCII_AS_ITSELF =
  /^(?:utf-?8|unicode-1-1-utf-8|us-ascii|ascii|iso-?8859-\d+|latin-?1|l1|windows-125\d|cp125\d)$/;

/** A body's bytes decoded once as UTF-8, for the ASCII check and the UTF-8 text both. */
export type Utf8Reading = {
  /** Whether the bytes were decoded at all (not when the first byte is beyond ASCII). */
  decoded: boolean;
  /**
   * The bytes' text when they were decoded and are well-formed UTF-8, else undefined: what
   * {@link wellFormedUtf8Text} decodes from them (the same strict decoder; no byte order mark,
   * whose first byte is beyond ASCII).
   */
  text: string | undefined;
  /**
   * The bytes as text when every byte is ASCII (most API bodies), else undefined. Such text is
   * also the bytes one character per byte, the view the byte search needs, and UTF-8 decodes
   * natively faster than that view does (Node: the windows-1252 decode of a 0.5 MB body costs
   * more than its UTF-8 decode plus the check).
   */
  ascii: string | undefined;
};

const NOT_DECODED: Utf8Reading = { decoded: false, text: undefined, ascii: undefined };

/**
 * Decodes a body as strict UTF-8 once: its ASCII text, if all ASCII, and its well-formed UTF-8
 * text, if it is that (for {@link wellFormedUtf8Text}, which then does not decode it again).
 * @param bytes - the body
 */
export function utf8Reading(bytes: Uint8Array): Utf8Reading {
  // A body whose first byte is not ASCII is not worth decoding to find out: not ASCII, and
  // wellFormedUtf8Text decodes it if it needs its text.
  if (bytes.byteLength === 0 || bytes[0]! >= 0x80) return NOT_DECODED;
  let text: string;
  try {
    text = strictUtf8Decoder.decode(bytes);
  } catch {
    // An invalid sequence: neither ASCII (every ASCII body is well-formed UTF-8) nor UTF-8 text.
    return { decoded: true, text: undefined, ascii: undefined };
  }
  // Well-formed, so every character beyond ASCII took 2–4 bytes and 1–2 UTF-16 units: the text
  // is as long as the bytes exactly when all of them are ASCII (no byte order mark: first byte).
  return { decoded: true, text, ascii: text.length === bytes.byteLength ? text : undefined };
}

/**
 * The bytes as text when every byte is ASCII, else undefined ({@link Utf8Reading}'s `ascii`).
 * @param bytes - the body
 */
export function asciiText(bytes: Uint8Array): string | undefined {
  return utf8Reading(bytes).ascii;
}

/** A byte order mark decides the charset over the declared one, as browsers read bodies. */
function bomLabel(bytes: Uint8Array): string | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe) return c === 0 && d === 0 ? "utf-32le" : "utf-16le";
  if (a === 0xfe && b === 0xff) return "utf-16be";
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return "utf-32be";
  if (a === 0xef && b === 0xbb && c === 0xbf) return "utf-8";
  return undefined;
}

function decodeWith(label: string | undefined, bytes: Uint8Array): string {
  if (label) {
    try {
      return new TextDecoder(label).decode(bytes);
    } catch {
      // an unknown label: read it as UTF-8, like a response without one
    }
  }
  return new TextDecoder().decode(bytes);
}

/** UTF-32 by its byte order mark, else by the label, else by where the zero bytes are. */
function utf32(bytes: Uint8Array, label: string): string {
  let start = 0;
  let bigEndian: boolean;
  if (bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0xfe && bytes[3] === 0xff)
    [start, bigEndian] = [4, true];
  else if (bytes[0] === 0xff && bytes[1] === 0xfe && bytes[2] === 0 && bytes[3] === 0)
    [start, bigEndian] = [4, false];
  else if (label.endsWith("le")) bigEndian = false;
  else if (label.endsWith("be")) bigEndian = true;
  else bigEndian = bytes[0] === 0 && bytes[3] !== 0;
  let out = "";
  for (let i = start; i + 3 < bytes.length; i += 4) {
    const code = bigEndian
      ? ((bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!) >>> 0
      : ((bytes[i + 3]! << 24) | (bytes[i + 2]! << 16) | (bytes[i + 1]! << 8) | bytes[i]!) >>> 0;
    out +=
      code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : "\ufffd";
  }
  return bytes.length % 4 === start % 4 ? out : `${out}\ufffd`;
}
