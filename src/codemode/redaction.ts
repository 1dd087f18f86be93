/**
 * Secret redaction: finds configured secrets (credentials) in text, bytes and values and replaces
 * them with `[REDACTED]`. Both code-mode servers use it twice:
 *
 * 1. **Before the sandbox sees anything** (the guarantee): every response `codemode.request()`
 *    returns, every upstream MCP result, every error a host callback throws, the spec `search`
 *    reads. An echoed credential is gone before the program could transform it.
 * 2. **On the final tool result** (a second line): results, console output and error messages.
 *
 * What a secret is matched as: the secret in any letter case, reversed, JSON-escaped (also every
 * character as `\uXXXX`), percent-encoded (also every byte as `%XX`), as hex of its UTF-8 bytes, as standard or URL-safe base64 of its UTF-8 bytes
 * at each of the 3 byte alignments, and, in bytes or text decoded with the wrong charset, as its
 * UTF-8, UTF-16LE and UTF-16BE byte sequences.
 *
 * What it cannot catch: a copy split into pieces or interleaved with other characters, XOR or
 * encryption, compositions of transforms (base64 of the reversed secret), encodings not listed
 * (UTF-32, EBCDIC), and compressed or archived bodies (a gzip or zip download is passed on as
 * bytes: a secret inside it is not seen). That is acceptable only because of line 1: a program
 * never holds the secret, so it cannot make such a copy; line 2 catches the secrets a program
 * might meet elsewhere (e.g. a value a person pasted into the code).
 *
 * Why a minimum length ({@link MIN_SECRET_LENGTH}): a short secret matches ordinary text, JSON
 * keys and random bytes (with `x` every `"type": "text"` was rewritten), and its base64 forms are
 * shorter still; from 8 characters on, a chance match in real data is negligible. A credential
 * shorter than that is guessable anyway, so it is refused at start instead.
 */
import { CodeModeError } from "../errors";
import { byteView, fromLatin1, latin1, pattern, textForms, utf16, utf8 } from "./secret-forms";

/** Secrets shorter than this are refused: see the file header for why. */
export const MIN_SECRET_LENGTH = 8;

/** What a secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** Redacts a fixed set of secrets; build it once with {@link secretRedactor}. */
export interface Redactor {
  /** False when no secret is configured (then every method returns its input). */
  readonly active: boolean;
  /** A text with every secret form replaced. */
  text(value: string): string;
  /** Bytes with every secret byte form replaced (a new array, or the same one when clean). */
  bytes(value: Uint8Array): Uint8Array;
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
  text: (value) => value,
  bytes: (value) => value,
  data: (value) => value,
  values: (value) => value,
  error: (error) => (error instanceof Error ? error : new Error(String(error))),
  base64: (value) => value,
};

function buildRedactor(secrets: readonly string[]): Redactor {
  const textual = secrets.flatMap(textForms);
  // In text: the textual forms, plus byte forms read one character per byte (text decoded with
  // the wrong charset, or base64-decoded `atob` output).
  const markers = new Map<string, string>();
  const byteForms = (view: (bytes: Uint8Array) => string) => {
    const forms = textual.map((form) => view(utf8(form)));
    for (const secret of secrets) {
      for (const bigEndian of [false, true]) {
        const form = view(utf16(secret, bigEndian));
        forms.push(form);
        markers.set(form.toLowerCase(), view(utf16(REDACTED, bigEndian)));
      }
    }
    return forms;
  };
  const textPattern = pattern([...textual, ...byteForms(latin1)]);
  const viewPattern = pattern(byteForms(byteView));
  const marker = (match: string) => markers.get(match.toLowerCase()) ?? REDACTED;
  const numeric = secrets.some((s) => /^[\d.eE+-]+$/.test(s));

  const text = (value: string) => value.replace(textPattern, marker);
  const bytes = (value: Uint8Array): Uint8Array => {
    if (value.byteLength === 0) return value;
    const view = byteView(value);
    viewPattern.lastIndex = 0;
    const found = viewPattern.test(view);
    // matchAll starts where the pattern's lastIndex is: back to the start.
    viewPattern.lastIndex = 0;
    if (!found) return value;
    const parts: Uint8Array[] = [];
    let at = 0;
    for (const match of view.matchAll(viewPattern)) {
      parts.push(value.subarray(at, match.index), fromLatin1(marker(match[0])));
      at = match.index + match[0].length;
    }
    parts.push(value.subarray(at));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let offset = 0;
    for (const part of parts) {
      out.set(part, offset);
      offset += part.byteLength;
    }
    return out;
  };
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
    const clean = decoded.replace(textPattern, marker);
    // Then the text itself: a secret written out literally may happen to be valid base64.
    return text(clean === decoded ? value : btoa(clean));
  };
  return { active: true, text, bytes, data: walk(true), values: walk(false), error, base64 };

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
