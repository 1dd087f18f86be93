/**
 * A run's code in two parts for a sandbox runner: the **base** (the harness, the budget runtime,
 * the extension modules and the settings: the same for every run of an executor, ~60 KB) and the
 * **program module** (the instrumented program: this run's own). Before, every run's RPC carried
 * the whole code: serialising the modules was ~5 % of the host's CPU per `execute` on the local
 * server (issue #43), and the runner deserialised them again. Now the base goes to a runner once,
 * named by its SHA-256 (code-hash.ts), and each run sends only its program module.
 *
 * Security defaults: the runner keeps a base only under the hash it computed itself and composes
 * the run's code from that base and the module sent in the same call, refusing a module name the
 * base already has, so what runs is always code the host sent: the base under its own hash (as
 * stable code is, issue #40), the program in the call. Only code that is plain data is split
 * ({@link splitRunCode}): an `env` with anything in it, or an outbound other than `null`, goes
 * whole as before, so no binding or stub is ever kept in a runner between runs.
 *
 * Does not do: keep a loaded worker between runs. Each run is still a fresh isolate
 * (`LOADER.load`).
 */
import { codeHash } from "./code-hash";

/**
 * The name of the module holding a run's own program in the executors' code
 * (src/executor/loader/sandbox-worker-code.ts names its module with this constant). Kept here
 * because the runners' room imports nothing of the executors (the runner Worker stays small).
 */
export const PROGRAM_MODULE = "user.js";

/** A run's code split for a runner (see the module comment). */
export interface RunCodeSplit {
  /** Everything but the program module. */
  base: WorkerLoaderWorkerCode;
  /** A string naming the base's content cheaply (module texts by identity), for the hash cache. */
  key: string;
  /** The program module's name. */
  name: string;
  /** The program module's text. */
  text: string;
}

/** Top-level fields a split base may have, all plain data (anything else goes whole). */
const DATA_FIELDS: ReadonlySet<string> = new Set([
  "compatibilityDate",
  "compatibilityFlags",
  "mainModule",
  "modules",
  "globalOutbound",
  "env",
  "limits",
  "allowExperimental",
]);

/** How many distinct module texts the key's interning keeps before starting over. */
const MAX_INTERNED = 64;
const interned = new Map<string, number>();
let nextId = 0;

/**
 * The number standing for a module text in keys: looked up by the string itself, which V8
 * compares by identity first, so the same constant's text costs no scan of its 30 KB.
 */
function idOf(text: string): number {
  let id = interned.get(text);
  if (id === undefined) {
    if (interned.size >= MAX_INTERNED) interned.clear();
    id = nextId++;
    interned.set(text, id);
  }
  return id;
}

/**
 * Splits `code` into its base and the program module `name`, or undefined when it should go
 * whole: no string module of that name, a module that is not a string or is named `__proto__`,
 * a field that is not plain data, a limit that is not a finite number (or is -0), a non-empty
 * `env` or a `globalOutbound` other than null.
 * @param code - the loader code of one run
 * @param name - the program module's name (`user.js` for the executors' code)
 */
export function splitRunCode(code: WorkerLoaderWorkerCode, name: string): RunCodeSplit | undefined {
  const record = code as unknown as Record<string, unknown>;
  // A field present as `undefined` would hash apart from an absent one: such code goes whole.
  for (const [field, value] of Object.entries(record))
    if (!DATA_FIELDS.has(field) || value === undefined) return undefined;
  if (record.globalOutbound !== null) return undefined;
  const env = record.env;
  if (env !== undefined && (!isPlainObject(env) || Object.keys(env).length > 0)) return undefined;
  const limits = record.limits;
  if (limits !== undefined && !isNumbers(limits)) return undefined;
  const flags = record.compatibilityFlags;
  if (flags !== undefined && !(Array.isArray(flags) && flags.every((f) => typeof f === "string")))
    return undefined;
  const modules = record.modules;
  if (!isPlainObject(modules)) return undefined;
  const text = modules[name];
  if (typeof text !== "string") return undefined;
  const rest: Record<string, string> = {};
  const ids: string[] = [];
  for (const [module, value] of Object.entries(modules)) {
    // `rest["__proto__"] = text` would set no module (a string is no prototype): the base
    // would lose it and still compose. Such code goes whole, as it is.
    if (typeof value !== "string" || module === "__proto__") return undefined;
    if (module === name) continue;
    rest[module] = value;
    ids.push(`${JSON.stringify(module)}:${idOf(value)}`);
  }
  const base = { ...record, modules: rest } as unknown as WorkerLoaderWorkerCode;
  const key = JSON.stringify([
    record.compatibilityDate,
    flags,
    record.mainModule,
    ids.toSorted(),
    env === undefined ? 0 : 1,
    limits,
    record.allowExperimental,
  ]);
  return { base, key, name, text };
}

/** Runs' base hashes kept (a few per executor setting and extension set). */
const MAX_BASE_HASHES = 32;

/**
 * The host's cache of base hashes: each kind of base (its {@link RunCodeSplit.key}) is hashed
 * once, not per run (a base is ~60 KB); at most {@link MAX_BASE_HASHES} kept, a failed hash
 * tried again next time.
 * @returns the hash of a split's base, from the cache when known
 */
export function baseHashCache(): (split: RunCodeSplit) => Promise<string> {
  const hashes = new Map<string, Promise<string>>();
  return (split) => {
    let hash = hashes.get(split.key);
    if (!hash) {
      if (hashes.size >= MAX_BASE_HASHES) hashes.clear();
      hash = codeHash(split.base);
      hashes.set(split.key, hash);
      hash.catch(() => hashes.delete(split.key));
    }
    return hash;
  };
}

/**
 * The code of one run on a runner: `base` with the program module added, or a message when the
 * name is one the base already has (the program would replace the harness or the runtime).
 * @param base - a base the runner keeps under its own hash
 * @param name - the program module's name, as sent in the call
 * @param text - the program module's text, as sent in the call
 */
export function composeRunCode(
  base: WorkerLoaderWorkerCode,
  name: unknown,
  text: unknown,
): WorkerLoaderWorkerCode | string {
  if (typeof name !== "string" || typeof text !== "string")
    return "The run's program module must be a name and a text.";
  const modules = base.modules as Record<string, unknown>;
  if (Object.hasOwn(modules, name) || name === base.mainModule)
    return `The run's program module may not replace the base's module "${name.slice(0, 80)}".`;
  return { ...base, modules: { ...modules, [name]: text } } as WorkerLoaderWorkerCode;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Finite numbers other than -0 only: the key is JSON, where NaN and ±Infinity all read `null`
 * and -0 reads `0`, so two different bases would share a key (and the host's cached hash).
 */
function isNumbers(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    Object.values(value).every((v) => Number.isFinite(v) && !Object.is(v, -0))
  );
}
