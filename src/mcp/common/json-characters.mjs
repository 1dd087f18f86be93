/**
 * The character codes of JSON's structure, in one place for the two scanners that read a request
 * body without parsing it: the hosting layer's shape pass (json-shape.ts, bundled into the
 * package and the Worker) and the local server's front (cli/local-server/front/
 * body/json-rpc-members.mjs, which runs in Node from the shipped sources). Plain JavaScript with no
 * imports for the front's sake, as src/app/config/host-names.mjs is.
 *
 * Each scanner compares `charCodeAt` results with these in its loops: numbers, not one-character
 * strings, so no string is built per character read. A scanner imports this module as a namespace
 * and copies the codes into constants of its own: unbundled (the front in Node, the library's
 * modules under a test runner), a compare with an imported binding is read through the binding's
 * module cell, and the front's pass over a deeply nested body took ~40 % more CPU (Node 22;
 * bench/README.md "JSON's character codes in one module").
 */

/** `{`: an object opens. */
export const OPEN_BRACE = 0x7b;
/** `}`: an object closes. */
export const CLOSE_BRACE = 0x7d;
/** `[`: an array opens. */
export const OPEN_BRACKET = 0x5b;
/** `]`: an array closes. */
export const CLOSE_BRACKET = 0x5d;
/** `"`: a string (or an object key) opens or closes. */
export const QUOTE = 0x22;
/** `\`: escapes the next character of a string. */
export const BACKSLASH = 0x5c;
/** `,`: between members and elements. */
export const COMMA = 0x2c;
/** `:`: between a key and its value. */
export const COLON = 0x3a;

/**
 * JSON's whitespace: space, tab, line feed and carriage return (RFC 8259 `ws`), nothing else.
 * @type {readonly number[]}
 */
export const JSON_WHITESPACE = Object.freeze([0x20, 0x09, 0x0a, 0x0d]);
