/**
 * Secret redaction: finds configured secrets (credentials) in text, bytes and values and replaces
 * them with `[REDACTED]`. Both code-mode servers use it twice:
 *
 * 1. **Before the sandbox sees anything** (the guarantee): every response `codemode.request()`
 *    returns, every upstream MCP result, every error a host callback throws, the spec `search`
 *    reads. An echoed credential is gone before the program could transform it.
 * 2. **On the final tool result** (a second line): results, console output and error messages.
 *
 * How a secret is found ("decode before you look"): the text is searched as it is, without NULs
 * (UTF-16/32 read one byte at a time), and in decoded views (./decoded-view.ts: percent-encoding
 * repeated, HTML/XML character references, JavaScript/JSON/CSS escapes, quoted-printable, up to
 * three layers deep) for the literal forms of ./secret-forms.ts: the secret, reversed and
 * case-changed, and its base16/32/64/64url encodings, also of those copies and of its
 * character-level, run and UTF-16 encodings. A match in a view is cut out of the original where
 * its encoded form was, then the text is searched again; a text that still holds a secret after
 * {@link MAX_ROUNDS} rounds is not made safe (`cleanText` and `cleanBytes` answer undefined, and
 * response bodies are withheld). Bytes are searched one character per byte, so a secret's UTF-8,
 * UTF-16 and UTF-32 forms are found at any offset and replaced in the same layout.
 *
 * What it cannot catch: a copy split into pieces or interleaved with other characters, XOR or
 * encryption, three or more layers mixing run and character encodings, run encodings other than
 * base16/32/64 (base58, base85, uuencode), character encodings it does not decode (legacy octal
 * escapes, `+` for space beyond the literal form), and compressed or archived bodies (a gzip or
 * zip download is passed on as bytes: a secret inside it is not seen). Line 2 catches what a
 * program might meet elsewhere (e.g. a value a person pasted into the code).
 *
 * Why a minimum length ({@link MIN_SECRET_LENGTH}): a short secret matches ordinary text, JSON
 * keys and random bytes (with `x` every `"type": "text"` was rewritten), and its base64 forms are
 * shorter still; from 8 characters on, a chance match in real data is negligible. A credential
 * shorter than that is guessable anyway, so it is refused at start instead.
 */
import { CodeModeError } from "../../errors";
import { decodedViews, MAX_SWALLOWED, originalRange, type View } from "./decoded-view";
import { formScanner, GRAM, windowKey, type FormScanner, type Range } from "./form-scanner";
import { byteView, fromLatin1, secretForms, utf8 } from "./secret-forms";

/** Secrets shorter than this are refused: see the file header for why. */
export const MIN_SECRET_LENGTH = 8;

/** What a secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** Redacts a fixed set of secrets; build it once with {@link secretRedactor}. */
export interface Redactor {
  /** False when no secret is configured (then every method returns its input). */
  readonly active: boolean;
  /**
   * True when a secret contains a character that starts an encoded sequence (`%`, `&`, `\\`,
   * `=`): decoding changes such a secret itself, so text that was decoded by a parser (JSON)
   * must be searched again after parsing.
   */
  readonly escapable: boolean;
  /** A text with every secret form replaced. */
  text(value: string): string;
  /** Bytes with every secret byte form replaced (a new array, or the same one when clean). */
  bytes(value: Uint8Array): Uint8Array;
  /**
   * Like {@link Redactor.text}, but undefined when the text cannot be made safe (a secret is
   * still found after cutting out every one found): the caller withholds it.
   */
  cleanText(value: string): string | undefined;
  /**
   * Like {@link Redactor.bytes}, but undefined when the bytes cannot be made safe.
   * @param value - the bytes
   * @param view - the bytes one character per byte, when the caller has them already (an
   *   ASCII body's text): saves converting them again
   */
  cleanBytes(value: Uint8Array, view?: string): Uint8Array | undefined;
  /** A copy of a data value (API or tool data) with secrets removed from strings, keys and bytes. */
  data<T>(value: T): T;
  /** Like {@link Redactor.data}, but object keys stay: for documents whose keys are structure. */
  values<T>(value: T): T;
  /** An error fit to cross into the sandbox: same name, secrets removed from name and message. */
  error(error: unknown): Error;
  /** Base64 text whose decoded bytes are redacted (re-encoded only when something changed). */
  base64(value: string): string;
}

/**
 * Throws when a secret is too short to redact safely (empty entries are ignored: nothing to hide).
 * @param secrets - the configured secrets
 * @param where - the API that received them, for the message
 * @throws CodeModeError `secret_too_short`
 */
export function assertRedactableSecrets(secrets: readonly string[], where: string): void {
  secrets.forEach((secret, index) => {
    if (typeof secret !== "string" || (secret.length > 0 && secret.length < MIN_SECRET_LENGTH))
      throw new CodeModeError(
        "secret_too_short",
        `${where}: secrets[${index}] is shorter than ${MIN_SECRET_LENGTH} characters. Secrets must be at least ${MIN_SECRET_LENGTH} characters: a shorter one matches ordinary text and JSON structure, so redacting it would corrupt responses and results (and it is too short to be a real credential). Pass the full credential, e.g. the token and the whole header value.`,
      );
  });
}

/**
 * The secrets to redact for one credential header value: the value, the bare token after its
 * scheme (`Bearer abc` → `abc`) and, for `Basic`, the decoded `user:password`; forms shorter than
 * {@link MIN_SECRET_LENGTH} are left out (the configuration check refuses short credentials).
 * @param headerValue - e.g. `Bearer abc…`
 */
export function credentialSecrets(headerValue: string): string[] {
  const value = headerValue.trim();
  const space = value.search(/\s/);
  const bare = space < 0 ? value : value.slice(space).trim();
  const out = [value, bare];
  if (/^basic\s/i.test(value)) {
    try {
      out.push(atob(bare));
    } catch {
      // not base64: nothing more to hide
    }
  }
  return [...new Set(out)].filter((s) => s.length >= MIN_SECRET_LENGTH);
}

const cache = new WeakMap<readonly string[], Redactor>();

/**
 * The redactor for a list of secrets, cached per list (pass the same frozen array every run).
 * Empty entries are ignored; length is checked by {@link assertRedactableSecrets}, not here.
 * @param secrets - strings that must never reach the sandbox or a client
 */
export function secretRedactor(secrets: readonly string[]): Redactor {
  let redactor = cache.get(secrets);
  if (!redactor) {
    const live = [...new Set(secrets.filter((s) => typeof s === "string" && s !== ""))];
    redactor = live.length === 0 ? INACTIVE : buildRedactor(live);
    cache.set(secrets, redactor);
  }
  return redactor;
}

const INACTIVE: Redactor = {
  active: false,
  escapable: false,
  text: (value) => value,
  bytes: (value) => value,
  cleanText: (value) => value,
  cleanBytes: (value) => value,
  data: (value) => value,
  values: (value) => value,
  error: (error) => (error instanceof Error ? error : new Error(String(error))),
  base64: (value) => value,
};

function buildRedactor(secrets: readonly string[]): Redactor {
  const forms = secrets.flatMap(secretForms);
  const textScanner = formScanner(forms);
  // What follows a sequence that swallowed the first 1–MAX_SWALLOWED characters of a copy: the
  // first GRAM characters of the rest of some form (see decodedViews). A rest shorter than that
  // (a copy of an 8-character secret that lost 5 or more) is not looked for: common two- and
  // three-letter texts would make every view suspect; docs/security.md lists it.
  const rests = new Set(
    forms.flatMap((form) =>
      Array.from({ length: MAX_SWALLOWED }, (_, k) => fold(form.slice(k + 1, k + 1 + GRAM))),
    ),
  );
  // The same as window keys (one per decoded sequence of a view: a string per sequence cost 7%
  // of an ordinary body's redaction). Keys fold more than case, so they only add candidates.
  const restKeys = new Set([...rests].filter((r) => r.length === GRAM).map((r) => windowKey(r, 0)));
  const mayHideCopy = (view: View) => {
    const { changed: ends, text } = view;
    if (!ends) return false;
    for (let i = 1; i < ends.length; i += 2) {
      const end = ends[i]!;
      if (
        end + GRAM <= text.length
          ? restKeys.has(windowKey(text, end))
          : rests.has(fold(text.slice(end)))
      )
        return true;
    }
    return false;
  };
  // Bytes are searched one character per byte: each form as its UTF-8 bytes, and a form that is
  // already one character per byte (a secret's UTF-8 or UTF-16 read as Latin-1) as itself.
  const byteScanner = formScanner(
    forms.flatMap((form) =>
      /[^\0-\x7f]/.test(form)
        ? [byteView(utf8(form)), ...(/[^\0-\xff]/.test(form) ? [] : [byteView(fromLatin1(form))])]
        : [form],
    ),
  );
  const numeric = secrets.some((s) => /^[\d.eE+-]+$/.test(s));

  const cleanText = (value: string): string | undefined =>
    cleanRounds(value, (text) => find(text, textScanner, mayHideCopy), cut);
  const cleanBytes = (value: Uint8Array, view?: string): Uint8Array | undefined => {
    if (value.byteLength === 0) return value;
    let current = value;
    for (let round = 0; round <= MAX_ROUNDS; round++) {
      const shown = round === 0 && view?.length === value.byteLength ? view : byteView(current);
      const ranges = find(shown, byteScanner, mayHideCopy);
      if (ranges.length === 0) return current;
      if (round === MAX_ROUNDS) return undefined;
      current = cutBytes(current, ranges);
    }
    return undefined;
  };
  const text = (value: string) => cleanText(value) ?? REDACTED;
  const bytes = (value: Uint8Array) => cleanBytes(value) ?? fromLatin1(REDACTED);
  const walk = (keys: boolean) => {
    const deep = (value: unknown, path: Set<object>, depth: number): unknown => {
      switch (typeof value) {
        case "string":
          return text(value);
        case "number":
        case "bigint": {
          if (!numeric) return value;
          const shown = String(value);
          return text(shown) === shown ? value : REDACTED;
        }
        case "object":
          break;
        default:
          return value;
      }
      if (value === null || value instanceof Date) return value;
      // A cycle back to an object being copied: the wire codec would mark it the same way.
      if (path.has(value)) return "[Circular]";
      if (depth > 200) return "[Too deep]";
      path.add(value);
      try {
        return copyOf(value, (v) => deep(v, path, depth + 1), keys);
      } finally {
        path.delete(value);
      }
    };
    return <T>(value: T): T => deep(value, new Set(), 0) as T;
  };
  const error = (raw: unknown): Error => {
    const original = raw instanceof Error ? raw : new Error(String(raw));
    const safe = new Error(text(String(original.message)));
    safe.name = text(String(original.name));
    return safe;
  };
  const base64 = (value: string): string => {
    let decoded: string;
    try {
      decoded = atob(value);
    } catch {
      return text(value);
    }
    const clean = cleanText(decoded) ?? REDACTED;
    // Then the text itself: a secret written out literally may happen to be valid base64.
    return text(clean === decoded ? value : btoa(clean));
  };
  return {
    active: true,
    escapable: secrets.some((s) => /[%&\\=]/.test(s)),
    text,
    bytes,
    cleanText,
    cleanBytes,
    data: walk(true),
    values: walk(false),
    error,
    base64,
  };

  /** Copy-on-write: the same object when nothing inside changed. */
  function copyOf(value: object, deep: (v: unknown) => unknown, keys: boolean): unknown {
    if (value instanceof Uint8Array) return bytes(value);
    if (value instanceof ArrayBuffer) {
      const clean = bytes(new Uint8Array(value));
      return clean.buffer === value ? value : clean.buffer;
    }
    if (ArrayBuffer.isView(value)) {
      const view = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      const clean = bytes(view);
      return clean === view ? value : clean;
    }
    if (value instanceof Error) {
      const clean = error(value);
      return clean.message === value.message && clean.name === value.name ? value : clean;
    }
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      value.forEach((item, i) => {
        const clean = deep(item);
        if (clean !== item) (out ??= [...value])[i] = clean;
      });
      return out ?? value;
    }
    if (value instanceof Set) {
      const items = [...value];
      const clean = items.map(deep);
      return clean.some((item, i) => item !== items[i]) ? new Set(clean) : value;
    }
    if (value instanceof Map) {
      const entries = [...value];
      const clean = entries.map(([k, v]) => [keys ? deep(k) : k, deep(v)] as const);
      return clean.some(([k, v], i) => k !== entries[i]![0] || v !== entries[i]![1])
        ? new Map(clean)
        : value;
    }
    let changed = false;
    const entries = Object.keys(value).map((k) => {
      const item = (value as Record<string, unknown>)[k];
      const [ck, cv] = [keys ? text(k) : k, deep(item)];
      if (ck !== k || cv !== item) changed = true;
      return [ck, cv] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
}

/** ASCII letters in lower case (as the scanner compares). */
const fold = (text: string) => text.replace(/[A-Z]+/g, (s) => s.toLowerCase());

/** Rounds of cutting before a text that still holds a secret is given up on. */
const MAX_ROUNDS = 3;

/** Every place a secret is found in the text or one of its decoded views, merged, in order. */
function find(text: string, scanner: FormScanner, mayHideCopy: (view: View) => boolean): Range[] {
  const ranges: [number, number][] = [];
  for (const view of decodedViews(text, mayHideCopy))
    for (const [start, end] of scanner.scan(view.text))
      ranges.push(originalRange(view, start, end));
  if (ranges.length < 2) return ranges;
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [ranges[0]!];
  for (const [start, end] of ranges.slice(1)) {
    const last = merged[merged.length - 1]!;
    if (start < last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** Cuts and re-checks until nothing is found; undefined when a secret survives the rounds. */
function cleanRounds(
  value: string,
  search: (text: string) => Range[],
  cutOut: (text: string, ranges: Range[]) => string,
): string | undefined {
  let current = value;
  for (let round = 0; round <= MAX_ROUNDS; round++) {
    const ranges = search(current);
    if (ranges.length === 0) return current;
    if (round === MAX_ROUNDS) return undefined;
    current = cutOut(current, ranges);
  }
  return undefined;
}

/**
 * The marker for a cut range, laid out like the range: a secret found with NULs between its
 * characters (UTF-16 or UTF-32 bytes) is replaced by the marker in the same layout, so the rest
 * of the text still reads in its encoding.
 */
function markerFor(code: (i: number) => number, start: number, end: number): string {
  let letters = 0;
  for (let i = start; i < end; i++) if (code(i) !== 0) letters++;
  const length = end - start;
  if (letters === length || letters === 0) return REDACTED;
  for (const stride of [2, 4]) {
    // Letters every `stride` characters from the first; NULs after the last belong to it (or
    // open the next character, big-endian), and stay.
    const span = (letters - 1) * stride + 1;
    let fits = length >= span;
    for (let i = 0; i < length && fits; i++)
      fits = (code(start + i) !== 0) === (i < span && i % stride === 0);
    if (fits) return [...REDACTED].join("\0".repeat(stride - 1)) + "\0".repeat(length - span);
  }
  return REDACTED;
}

function cut(text: string, ranges: Range[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    parts.push(
      text.slice(at, start),
      markerFor((i) => text.charCodeAt(i), start, end),
    );
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

function cutBytes(bytes: Uint8Array, ranges: Range[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    parts.push(bytes.subarray(at, start), fromLatin1(markerFor((i) => bytes[i]!, start, end)));
    at = end;
  }
  parts.push(bytes.subarray(at));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
