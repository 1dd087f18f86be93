/**
 * The one spelling of a request path that is validated, shown for approval and sent.
 *
 * Why: the URL parser interprets what validation treated as data. `..`, `%2e%2e` and `..\`
 * inside a segment pass a path-template match (`/zones/{zone_id}`) and are then resolved by
 * `new URL()` to a path outside the spec; a `?` or `#` turns the rest into a query or fragment
 * nobody checked. So every segment is percent-decoded and re-encoded as exactly one segment, and
 * anything the URL parser would reinterpret is refused instead of repaired.
 */

/** Characters a path segment may hold literally (RFC 3986 `pchar` minus the unreserved set). */
const SEGMENT_SAFE = /%(?:3A|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/g;
/** A segment that is canonical as written (the common case: ids and names). */
const PLAIN = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

/**
 * Longest request path accepted, in characters (as written, before canonicalization): Cloudflare's
 * own URL limit (16 KB), so no path the edge would carry is refused. Why a bound at all: the path
 * matcher's regular expressions for segments mixing parameters and text (`{a}.{b}.json`) take
 * time quadratic in a segment's length, and the program chooses the path.
 */
export const MAX_PATH_LENGTH = 16_384;

/** Outcome of {@link canonicalPath}: the canonical path, or why the path is refused. */
export type CanonicalPath = { ok: true; path: string } | { ok: false; problem: string };

/**
 * Canonicalizes a concrete request path (no query string): each segment percent-decoded
 * (malformed → refused) and re-encoded as one segment. Refused: a path not starting with `/`,
 * `.`/`..` segments (raw or encoded in any case, also as a part of a segment holding an encoded
 * `/`, such as `..%2F..`, with `;` path parameters, such as `..;x`, which Java servers strip,
 * percent-encoded twice, `%252e%252e`, or in NFKC compatibility characters such as `．．`), `\` (raw or `%5C`), a raw `?` or `#`, control characters and empty
 * segments other than one trailing slash. An encoded `/`, `?` or `#` stays encoded: it is data
 * inside one segment.
 * @param path - the path sandbox code asked for
 * @returns the canonical path, or a problem naming the segment and the fix
 */
export function canonicalPath(path: string): CanonicalPath {
  if (!path.startsWith("/"))
    return { ok: false, problem: 'the path must start with "/", e.g. "/zones/123".' };
  if (path.length > MAX_PATH_LENGTH) return tooLong(path.length);
  if (path.includes("?"))
    return {
      ok: false,
      problem: `the path ${quote(path)} contains "?": put query parameters in \`query\` (an object), never in the path.`,
    };
  if (path.includes("#"))
    return {
      ok: false,
      problem: `the path ${quote(path)} contains "#": fragments are never sent.`,
    };
  const segments = path.slice(1).split("/");
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const where = `segment ${i + 1} (${quote(segment)}) of the path`;
    if (segment === "") {
      // `/` alone and one trailing slash are paths; `a//b` is not.
      if (i === segments.length - 1) {
        out.push("");
        continue;
      }
      return { ok: false, problem: `${where} is an empty segment ("//"): remove it.` };
    }
    if (PLAIN.test(segment)) {
      out.push(segment);
      continue;
    }
    let decoded: string;
    try {
      decoded = segment.includes("%") ? decodeURIComponent(segment) : segment;
    } catch {
      return {
        ok: false,
        problem: `${where} has malformed percent-encoding: write "%" as "%25".`,
      };
    }
    const problem = segmentProblem(decoded);
    if (problem) return { ok: false, problem: `${where} ${problem}` };
    out.push(encodeSegment(decoded));
  }
  // Percent-encoding may grow a path up to ninefold: the bound holds for what is matched and sent.
  const canonical = `/${out.join("/")}`;
  if (canonical.length > MAX_PATH_LENGTH) return tooLong(canonical.length);
  return { ok: true, path: canonical };
}

function tooLong(length: number): CanonicalPath {
  return {
    ok: false,
    problem: `the path is longer than 16,384 characters (${length}, percent-encoded): send long data in the query or body.`,
  };
}

/** Why a decoded segment value cannot be sent as one segment, or undefined. */
function segmentProblem(value: string): string | undefined {
  if (hasControlCharacter(value)) return "contains a control character: refused.";
  // What a server may still make of the value: a proxy that decodes once in front of a server
  // that decodes again reads `%252e%252e` as "..", and a server folding Unicode compatibility
  // forms (NFKC) reads "．．" or "‥" so.
  for (const form of readings(value)) {
    if (form.includes("\\"))
      return 'contains "\\" (raw, %5C or %255C), which URL parsers read as "/": refused.';
    // An encoded "/" is data inside one segment, but a server that decodes it must not find a
    // dot segment there either (`..%2F..`). Tomcat, Jetty and Spring drop a segment's `;…` path
    // parameters before resolving dot segments, so `..;` or `..;x=1` is a ".." segment there.
    for (const part of form.split("/")) {
      const bare = part.split(";", 1)[0];
      if (bare === "." || bare === "..")
        return `is or holds a "${bare}" segment (raw, percent-encoded once or twice, in compatibility characters such as "．", or followed by ";…" path parameters), which would leave the path: use the real value.`;
    }
  }
  return undefined;
}

/** The decoded value, decoded once more (when that is valid), and its NFKC form. */
function readings(value: string): string[] {
  const forms = [value];
  if (value.includes("%")) {
    try {
      forms.push(decodeURIComponent(value));
    } catch {
      // Not valid percent-encoding a second time: no server decodes it to anything.
    }
  }
  const folded = value.normalize("NFKC");
  if (folded !== value) forms.push(folded);
  return forms;
}

/**
 * Percent-encodes a decoded value as exactly one path segment: `encodeURIComponent`, then the
 * RFC 3986 sub-delimiters, `:` and `@` back to literal (a segment may hold them, and spec paths
 * such as `/files:upload` spell them so).
 * @param value - the decoded segment
 */
export function encodeSegment(value: string): string {
  return encodeURIComponent(value).replace(SEGMENT_SAFE, (hex) => decodeURIComponent(hex));
}

/**
 * Whether a text holds a C0 control character or DEL (a loop, not a regular expression: lint
 * forbids control characters in patterns).
 * @param text - the text to scan
 * @param allowTab - accept horizontal tab (legal inside HTTP header values)
 */
export function hasControlCharacter(text: string, allowTab = false): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && !(allowTab && code === 0x09)) || code === 0x7f) return true;
  }
  return false;
}

function quote(text: string): string {
  const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return JSON.stringify(shown);
}
