// JSON text in ASCII only, for text a runtime keeps (see asciiJson).
/**
 * JSON text with every character past ASCII escaped (`\u2014`): the same value, read back by
 * `JSON.parse`. Why: V8 holds a string with any character past Latin-1 as UTF-16, two bytes a
 * character. The launch spec's text stays in the host runtime for its life (src/app/config/
 * launch-specs.ts); Cloudflare's spec has a few such characters, which made its 4.2 MB 8.4 MB
 * there (issue #43).
 * @param {unknown} value
 * @returns {string}
 */
export function asciiJson(value) {
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
