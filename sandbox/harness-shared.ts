/**
 * What the two harnesses do alike: the per-run isolate's harness.ts (V8) and the shared worker's
 * engine/guest.ts (QuickJS) both encode the program's result within the size limit, report a
 * thrown value as bounded data and load extension modules by name. Kept in one module so the
 * two engines cannot drift apart on any of these; what differs per engine (QuickJS's name for a
 * stack overflow) stays with its harness.
 *
 * Each harness bundles its own copy of this module and evaluates it while the harness loads,
 * before any user code exists: the intrinsics below are captured then, so a program that
 * replaces `Error` or `JSON.stringify` later (or the engine's charge wrappers, installed per
 * run) changes nothing here.
 */
import { encodeResult } from "./codec-result";
import type { SandboxError, SandboxExtensionName } from "./protocol";
import { capText, type Shrunk } from "./truncate";

/** Longest error name and message a harness sends (the host cuts again: it trusts nothing). */
const MAX_ERROR_NAME = 100;
const MAX_ERROR_MESSAGE = 8_000;
/** Tail of the stack kept: the frames are at the end, after the (possibly huge) message. */
const MAX_STACK = 8_000;

const ErrorClass = Error;
const { apply } = Reflect;
const textSlice = String.prototype.slice;

/** Most UTF-8 bytes of a thrown non-error's text in the message (shrunk as a result is). */
const MAX_THROWN_TEXT = 1_000;

/**
 * Why a host call made while the program's module loads is refused. Its top level runs before
 * the run has started: on workerd a host call there is an I/O in a module's global scope, which
 * the runtime refuses with a message about handlers the program cannot act on, and the run's
 * time is not yet counting. Both harnesses refuse such calls themselves, with this text.
 * @param label - `namespace.name` of the call
 * @returns the error message
 */
export function calledWhileLoading(label: string): string {
  return `${label}() was called from the program's top level, while its module was still loading: host calls work only once the run has started. Call it inside the default export (\`export default async () => { … }\`).`;
}

/**
 * Why a host call was refused when its arguments' encoding stopped at the call's byte limit
 * (sandbox/codec.ts `encodeParts`): their whole size is not known, only that it is more.
 * @param label - `namespace.name` of the call
 * @param maxCallBytes - the call's byte limit
 * @returns the error message
 */
export function overLimit(label: string, maxCallBytes: number): string {
  return `${label}() arguments are more than ${maxCallBytes} bytes (the limit, maxCallBytes); encoding stopped there. Send less data per call.`;
}

/**
 * Why `fetch()` fails in a program, naming what to use instead. The sandbox has no network (the
 * per-run isolate's `globalOutbound: null`; the engine has no fetch): workerd's own refusal
 * tells the program to use "bindings in env", which a program does not have. So both harnesses
 * put a `fetch` in place that says where calls go: `<namespace>.request()` when the run has one
 * (an OpenAPI server's execute), else the functions the run does have.
 * @param namespaces - the run's namespaces (functions by name) as the program will see them
 * @returns the error message
 */
export function fetchRefusal(namespaces: ReadonlyMap<string, Record<string, unknown>>): string {
  const why = "fetch() is not available here: programs have no network access.";
  for (const [namespace, api] of namespaces)
    if (typeof api["request"] === "function")
      return `${why} Call the API with ${namespace}.request({ method, path, query, body }) instead; the host adds the credentials.`;
  const names: string[] = [];
  for (const [namespace, api] of namespaces)
    for (const name of Object.keys(api))
      if (typeof api[name] === "function") names.push(`${namespace}.${name}()`);
  if (names.length === 0) return why;
  const list = names.length > 6 ? `${names.slice(0, 6).join(", ")}, …` : names.join(", ");
  return `${why} Use the functions this tool provides instead (${list}: see the tool's description).`;
}

/**
 * Ends the run at once with a `LimitError` carrying `message`, whatever the program does after
 * (the harness fails the run and every later budget tick throws); never returns.
 */
export type EndRun = (message: string) => never;

/** An extension module: adds functions to a namespace. */
export interface SandboxExtension {
  install(api: Record<string, unknown>, data: string | Uint8Array, end?: EndRun): void;
}

/**
 * Imports an extension module (literal specifiers keep them external to each harness bundle).
 * @param name - the extension's name
 * @returns the extension module
 */
export async function loadExtension(name: SandboxExtensionName): Promise<SandboxExtension> {
  switch (name) {
    case "openapi":
      return (await import("./ext-openapi.js")) as SandboxExtension;
    case "request":
      return (await import("./ext-request.js")) as SandboxExtension;
    case "skills":
      return (await import("./ext-skills.js")) as SandboxExtension;
  }
}

/**
 * The thrown value as bounded data. Reading an error's fields runs the program's getters, so
 * every read is guarded: a getter that throws or returns a non-string leaves a placeholder.
 * @param thrown - what the program threw
 * @returns the error as the harness reports it
 */
export function toSandboxError(thrown: unknown): SandboxError {
  if (thrown instanceof ErrorClass) {
    const name = readString(thrown, "name") ?? "Error";
    // A write into the spec's shared views throws its own message with the cause and the fix
    // (src/openapi/lazy-view.ts); any other error is reported in the engine's words.
    const message = readString(thrown, "message") ?? "";
    const out: SandboxError = {
      name: capText(name, MAX_ERROR_NAME),
      message: capText(message, MAX_ERROR_MESSAGE),
    };
    const stack = readString(thrown, "stack");
    if (stack !== undefined)
      out.stack =
        stack.length > MAX_STACK
          ? (apply(textSlice, stack, [stack.length - MAX_STACK]) as string)
          : stack;
    return out;
  }
  // Encoded as a result is, within a bound: a thrown array of a million views is not written
  // whole first (its text was 1.4 GB).
  let text: string;
  try {
    text = encodeResult(thrown, MAX_THROWN_TEXT).text;
  } catch {
    text = "(unreadable)";
  }
  return { name: "Error", message: `Non-error thrown: ${text}` };
}

/** One string field of an error, or undefined when its getter throws or gives a non-string. */
function readString(target: object, key: "name" | "message" | "stack"): string | undefined {
  try {
    const value = (target as Record<string, unknown>)[key];
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The result as JSON text within `maxBytes` (codec-result.ts): the work is bounded by the
 * limit, never by how large the program's value would be as a tree, and none of the program's
 * methods (a `toJSON` on Array.prototype, a replaced `slice`) is called. The host re-checks its
 * size.
 * @param value - what the program returned
 * @param maxBytes - the run's result limit in UTF-8 bytes
 * @returns the text, whether it was shrunk, and the full size before shrinking
 */
export function resultText(value: unknown, maxBytes: number): Shrunk {
  return encodeResult(value, maxBytes);
}
