/**
 * Which namespace names the executor accepts. The harness defines every namespace as a global
 * of the sandbox (non-configurable, non-writable; sandbox/harness.ts), so a name that is
 * already a global there would silently replace it for the model's code (`Promise`, `console`,
 * `setTimeout`, …) or fail to install (`undefined`, `NaN`); a name that is not an identifier,
 * or is a reserved word, could never be written in code (`my-api.x`, `class.x`).
 */
import { CodeModeError } from "../errors";
import { RESERVED_PREFIX } from "./instrument";
import type { HostNamespaces } from "./types";

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Words code cannot use as a variable name (strict mode and modules: the sandbox runs one). */
const RESERVED_WORDS = new Set(
  (
    "await break case catch class const continue debugger default delete do else enum export " +
    "extends false finally for function if implements import in instanceof interface let new " +
    "null package private protected public return static super switch this throw true try " +
    "typeof var void while with yield arguments"
  ).split(" "),
);

/**
 * Globals of the sandbox isolate, listed so the check does not depend on what the host's own
 * global scope happens to hold (the host may run with other compatibility flags). The host's
 * globals are refused too: the sandbox runs on the same runtime.
 */
export const SANDBOX_GLOBALS: ReadonlySet<string> = new Set(
  // ECMAScript
  (
    "globalThis Infinity NaN undefined eval isFinite isNaN parseFloat parseInt decodeURI " +
    "decodeURIComponent encodeURI encodeURIComponent escape unescape Object Function Array " +
    "Number Boolean String Symbol BigInt Date Promise RegExp Error AggregateError EvalError " +
    "RangeError ReferenceError SyntaxError TypeError URIError JSON Math Intl Reflect Proxy " +
    "ArrayBuffer SharedArrayBuffer Atomics DataView Int8Array Uint8Array Uint8ClampedArray " +
    "Int16Array Uint16Array Int32Array Uint32Array Float32Array Float64Array BigInt64Array " +
    "BigUint64Array Map Set WeakMap WeakSet WeakRef FinalizationRegistry Iterator " +
    // Workers runtime (web platform)
    "self console fetch Request Response Headers FormData URL URLSearchParams URLPattern " +
    "AbortController AbortSignal Blob File ReadableStream WritableStream TransformStream " +
    "TextEncoder TextDecoder crypto Crypto CryptoKey SubtleCrypto setTimeout setInterval " +
    "clearTimeout clearInterval queueMicrotask structuredClone atob btoa caches navigator " +
    "performance scheduler WebSocket Event EventTarget CustomEvent DOMException " +
    "addEventListener removeEventListener dispatchEvent"
  ).split(" "),
);

/**
 * The problem with a namespace name, or `undefined` when it is usable.
 * @param name - a key of {@link HostNamespaces}
 */
export function namespaceNameProblem(name: string): string | undefined {
  if (!IDENTIFIER.test(name) || RESERVED_WORDS.has(name))
    return `Namespace ${JSON.stringify(name)} is not a name code can use (it must be a JavaScript identifier that is not a reserved word). Rename it, e.g. "codemode" or "api".`;
  if (name.startsWith(RESERVED_PREFIX))
    return `Namespace ${JSON.stringify(name)} starts with "${RESERVED_PREFIX}", which the sandbox reserves for itself. Rename it.`;
  if (SANDBOX_GLOBALS.has(name) || name in globalThis)
    return `Namespace "${name}" would shadow the sandbox global ${name}, which the model's code relies on. Rename the namespace (e.g. "codemode" or "api").`;
  return undefined;
}

/**
 * Checks every namespace name and that each entry is a function.
 * @param namespaces - the run's host namespaces
 * @throws CodeModeError `namespace_invalid` naming the first bad name and what to do
 */
export function checkNamespaces(namespaces: HostNamespaces): void {
  for (const [ns, fns] of Object.entries(namespaces)) {
    const problem = namespaceNameProblem(ns);
    if (problem !== undefined) throw new CodeModeError("namespace_invalid", problem);
    for (const [name, fn] of Object.entries(fns)) {
      if (typeof fn !== "function")
        throw new CodeModeError("namespace_invalid", `${ns}.${name} must be a function.`);
    }
  }
}
