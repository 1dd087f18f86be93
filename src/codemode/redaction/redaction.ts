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
 * (UTF-16/32 read one byte at a time), and in decoded views (./decoding/decoded-views.ts:
 * percent-encoding repeated, HTML/XML character references, JavaScript/JSON/CSS escapes,
 * quoted-printable, up to three layers deep), in spelled-out readings (./spellings/: byte and
 * character lists, bit strings, whitespace and zero-width characters dropped, NFKC folding, Unicode
 * tag characters read as ASCII, ROT13 over a character-level encoding; ./spellings/dump-views.ts:
 * `hexdump -C`, `xxd` and `od` dumps) and in both composed, for the literal forms of
 * ./search/secret-forms.ts: the secret, reversed, case-changed and ROT13, and its
 * base16/32/32hex/64/64url encodings, also of those copies and of its character-level, list, run
 * and UTF-16 encodings. A match in a view is cut out of the original where its encoded form was,
 * then the text is searched again (./search/secret-search.ts); a text that still holds a secret
 * after three rounds is not made safe (`cleanText` and `cleanBytes` answer undefined, and response
 * bodies are withheld). Bytes are searched one character per byte, so a secret's UTF-8, UTF-16 and
 * UTF-32 forms are found at any offset and replaced in the same layout (./search/marker.ts);
 * bytes that hold UTF-8 multi-byte sequences are also read as UTF-8, so a spelling beyond
 * Latin-1 (full-width, byte-swapped UTF-16) is found in bytes as in text
 * (./decoding/utf8-bytes-view.ts). Data
 * values are copied with every string, key and byte array redacted (./redacted-copy.ts).
 *
 * What it cannot catch (docs/security.md, "Honest limits", says what an operator does about it):
 * a copy split into pieces (across responses) or interleaved with other characters, XOR or
 * encryption, more than two run encodings over what is read beneath them (three layers under a
 * run encoding are read: ./decoding/run-decoded-view.ts), run encodings other than
 * base16/32/64 (base58, base85, uuencode), character encodings it does not decode (legacy octal
 * escapes, `+` for space beyond the literal form), and compressed or archived bodies (a gzip or
 * zip download is passed on as bytes: a secret inside it is not seen). Line 2 catches what a
 * program might meet elsewhere (e.g. a value a person pasted into the code).
 *
 * Why a minimum length ({@link MIN_SECRET_LENGTH}): a short secret matches ordinary text, JSON
 * keys and random bytes (with `x` every `"type": "text"` was rewritten), and its base64 forms are
 * shorter still; from 8 characters on, a chance match in real data is negligible. A credential
 * shorter than that is guessable anyway, so it is refused at start instead.
 *
 * Layout, by the question each room answers (imports run down this list, never up):
 * - here: the entry points other rooms of code mode import (this file, ./result-redaction.ts,
 *   ./tool-list-redaction.ts, ./redacted-copy.ts, ./slices.ts for its pause) and the three
 *   leaves every room below shares: ./view-builder.ts (what a view is: a text with a map back to
 *   the original), ./slices.ts (how a long pass gives the thread away) and ./byte-text.ts (bytes
 *   as text, one character per byte);
 * - ./search/: what is looked for and how a find is cut out (the literal forms of a secret, one
 *   scanner for all of them, the rounds of the search, the marker);
 * - ./decoding/: which views of a text are searched, in what order (the character-level
 *   decoding step, the NUL-free view, the spelled-out readings and the steps after them);
 * - ./spellings/: one file per way a text can be spelled out (number lists, compaction, tag
 *   characters, ROT13, dumps, octal, code points, Morse, …), each a view made like a decoding
 *   step that knows nothing of the search, nor of the other spellings but through the notation
 *   registry (./spellings/notation-views.ts).
 * A new spelling goes into ./spellings/ and is asked for by the registry or by
 * ./decoding/spelled-views.ts. The views never import the search, so they never hold a secret;
 * test/unit/import-boundaries.test.ts pins these arrows.
 */
import { CodeModeError } from "../../errors";
import { REDACTED } from "./search/marker";
import { redactedCopy, textsIn } from "./redacted-copy";
import { SLICE_POSITIONS, yieldThread } from "./slices";
import { fromLatin1 } from "./byte-text";
import { secretSearch, type SecretSearch } from "./search/secret-search";

export { REDACTED } from "./search/marker";

/** Secrets shorter than this are refused: see the file header for why. */
export const MIN_SECRET_LENGTH = 8;

/** Redacts a fixed set of secrets; build it once with {@link secretRedactor}. */
export interface Redactor
  // The sliced passes of the search itself (./search/secret-search.ts): for large response
  // bodies, so one program's body does not hold every other client of the host.
  extends Pick<
    SecretSearch,
    "cleanTextInSlices" | "cleanBytesInSlices" | "cleanAsciiBytesInSlices"
  > {
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
   * @param readAsUtf8 - false to skip reading them as UTF-8 too, only for well-formed UTF-8 the
   *   caller decodes as UTF-8 and searches as text afterwards (./search/secret-search.ts)
   */
  cleanBytes(value: Uint8Array, view?: string, readAsUtf8?: boolean): Uint8Array | undefined;
  /** A copy of a data value (API or tool data) with secrets removed from strings, keys and bytes. */
  data<T>(value: T): T;
  /**
   * {@link Redactor.data} with its texts searched first, in bounded slices (a long text in
   * slices of its own, short ones at once with a pause after every {@link SLICE_POSITIONS}
   * characters), the copy then made from their answers: the same copy, for a large parsed body
   * (issue #40: 4 MB of parsed JSON held the host thread 0.4–0.6 s in one `data` call).
   * @param value - the value
   * @param pause - what a pause does (a macrotask by default)
   */
  dataInSlices<T>(value: T, pause?: () => Promise<void>): Promise<T>;
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
    // An unset Worker secret reads as undefined: say that, not "too short".
    if (typeof secret !== "string")
      throw new CodeModeError(
        "secret_too_short",
        `${where}: secrets[${index}] is ${secret === null ? "null" : typeof secret}, not a string: is the secret it names set? A Worker secret that is not set reads as undefined. Set it (locally in .dev.vars, e.g. API_TOKEN=…; deployed with \`npx wrangler secret put API_TOKEN\`), or leave it out of \`secrets\` when there is none.`,
      );
    if (secret.length > 0 && secret.length < MIN_SECRET_LENGTH)
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
 * What a short text costs {@link Redactor.dataInSlices} besides its characters: a search's fixed
 * cost.
 */
const PART_COST = 64;

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
  cleanTextInSlices: async (value) => value,
  cleanBytesInSlices: async (value) => value,
  cleanAsciiBytesInSlices: async (text) => text,
  data: (value) => value,
  dataInSlices: async (value) => value,
  values: (value) => value,
  error: (error) => (error instanceof Error ? error : new Error(String(error))),
  base64: (value) => value,
};

/** The redactor for a non-empty list of distinct secrets: the search plus what is built on it. */
function buildRedactor(secrets: readonly string[]): Redactor {
  const search = secretSearch(secrets);
  const { cleanText, cleanBytes, cleanTextInSlices, cleanBytesInSlices } = search;
  const text = (value: string) => cleanText(value) ?? REDACTED;
  const bytes = (value: Uint8Array) => cleanBytes(value) ?? fromLatin1(REDACTED);
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
  // A secret that reads as a number may be echoed as one: only then are numbers checked.
  const numeric = secrets.some((s) => /^[\d.eE+-]+$/.test(s));
  const parts = { text, bytes, error };
  const dataInSlices = async <T>(value: T, pause = yieldThread): Promise<T> => {
    const answers = new Map<string, string>();
    let [work, changed] = [0, false];
    const walk = textsIn(value, true, numeric);
    let step = walk.next();
    for (; !step.done; step = walk.next()) {
      const part = step.value;
      // A part met again costs its step of the walk; a new one its characters and a search's
      // fixed cost: a million short strings are paused between like a long text.
      if (answers.has(part)) work++;
      else {
        const clean =
          part.length < SLICE_POSITIONS
            ? text(part)
            : ((await cleanTextInSlices(part, pause)) ?? REDACTED);
        answers.set(part, clean);
        if (clean !== part) changed = true;
        work += part.length + PART_COST;
      }
      if (work >= SLICE_POSITIONS) {
        work = 0;
        await pause();
      }
    }
    // Nothing to cut in a value of texts only (every large clean answer): the copy would be the
    // value itself, and its walk one more unsliced pass (59–132 ms at load ~9 for 4 MB of
    // parsed JSON). Else the copy, its texts' answers looked up.
    if (step.value && !changed) return value;
    const known = (part: string) => answers.get(part) ?? text(part);
    return redactedCopy({ text: known, bytes, error }, true, numeric)(value);
  };
  return {
    active: true,
    escapable: secrets.some((s) => /[%&\\=]/.test(s)),
    text,
    bytes,
    cleanText,
    cleanBytes,
    cleanTextInSlices,
    cleanBytesInSlices,
    cleanAsciiBytesInSlices: search.cleanAsciiBytesInSlices,
    data: redactedCopy(parts, true, numeric),
    dataInSlices,
    values: redactedCopy(parts, false, numeric),
    error,
    base64,
  };
}
