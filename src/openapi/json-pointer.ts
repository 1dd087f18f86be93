/**
 * JSON Pointer (RFC 6901) helpers in URI-fragment form (`#/paths/~1zones/get`), the form `$ref`s
 * and error messages use.
 */

/**
 * Escapes one reference token (`~` → `~0`, `/` → `~1`).
 * @param token - a property name or array index
 */
export function escapePointerToken(token: string | number): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Builds a fragment pointer from tokens: `["paths", "/zones", "get"]` → `#/paths/~1zones/get`.
 * @param tokens - reference tokens, unescaped
 */
export function formatPointer(tokens: readonly (string | number)[]): string {
  let out = "#";
  for (const token of tokens) out += "/" + escapePointerToken(token);
  return out;
}

/**
 * Appends one token to a fragment pointer.
 * @param pointer - a fragment pointer such as `#/paths`
 * @param token - the token to append, unescaped
 */
export function childPointer(pointer: string, token: string | number): string {
  return pointer + "/" + escapePointerToken(token);
}

/**
 * Splits a local fragment pointer into unescaped tokens, or returns `undefined` when it is not a
 * local pointer (external refs such as `other.yaml#/X` are not resolvable at run time).
 * @param pointer - `#`, `#/a/b` (percent-encoding inside the fragment is decoded)
 */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === "#" || pointer === "") return [];
  if (!pointer.startsWith("#/")) return undefined;
  let body = pointer.slice(2);
  if (body.includes("%")) {
    try {
      body = decodeURIComponent(body);
    } catch {
      return undefined;
    }
  }
  return body.split("/").map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/**
 * Reads the value at a local fragment pointer, or `undefined` when any step is missing.
 * @param root - the document the pointer is relative to
 * @param pointer - a local fragment pointer
 */
export function getAtPointer(root: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  if (!tokens) return undefined;
  let node = root;
  for (const token of tokens) {
    if (node === null || typeof node !== "object") return undefined;
    if (!Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}
