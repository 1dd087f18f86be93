/**
 * What of a runtime's options differs from launch to launch, taken out so that one workerd
 * configuration built by Miniflare serves every launch (config-cache.mjs). Each such value is
 * replaced by a "slot" (a name no Worker bundle holds); the configuration built from these
 * options is kept, and each launch's copy gets its own values in the slots (capnp-copy.mjs).
 *
 * - **Bindings.** Every string binding (the settings, secrets and compiled spec of serve.mjs, the
 *   cluster secret) is a slot of its own: no value of a launch reaches the configuration builder
 *   or the kept configuration, only the binding's name.
 * - **Folders.** This launch's private folders (the socket folder, with Miniflare's temporary
 *   folder inside, and the local data folder) are slots wherever they appear in a string (the
 *   runners' addresses, the data folder's disk services).
 * - **Miniflare's proxy secret** (16 random bytes Miniflare makes once per process and binds to its
 *   entry Worker): the builder has Miniflare make {@link PROXY_SLOT} instead
 *   (workerd-config-builder.mjs), and each launch gets fresh random bytes there.
 */

/** The bytes every slot's name holds (capnp-copy.mjs looks for them first). */
export const SLOT_MARKER = "cmmslot7e3f";
/** Miniflare's proxy secret's slot: 16 bytes, that secret's length. */
export const PROXY_SLOT = `${SLOT_MARKER}:pxy;`;

/** A binding's name as slots carry it (environment-variable names; anything else: no template). */
const BINDING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * @typedef {object} Template
 * @property {Record<string, unknown>} options - the options with slots (what is built and what
 *   the kept configuration's key is made of)
 * @property {[string, string][]} bindings - each binding slot and this launch's value
 * @property {[string, string][]} paths - each folder slot and this launch's folder
 */

/**
 * The slot of a folder, as a path (the builder gets a folder of its own in its place).
 * @param {string} name
 */
export const pathSlot = (name) => `/${SLOT_MARKER}:${name};`;

/**
 * `value` with every string in it (object values and array items, deeply) changed by `change`.
 * @param {unknown} value
 * @param {(text: string) => string} change
 * @returns {unknown}
 */
export function mapStrings(value, change) {
  if (typeof value === "string") return change(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, change));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, mapStrings(item, change)]),
    );
  return value;
}

/**
 * `text` with each pair's first string replaced by its second, wherever it appears.
 * @param {string} text
 * @param {[string, string][]} pairs
 */
export const replaceAll = (text, pairs) =>
  pairs.reduce((out, [from, to]) => out.split(from).join(to), text);

/**
 * The template of a runtime's options (see the header), or undefined when this launch's values
 * cannot all be taken out: folders inside one another (a slot would then hold part of another),
 * a Worker's modules inside one of them (the build reads them there), a binding name slots cannot
 * carry. The caller then builds with the values themselves.
 * @param {Record<string, unknown>} options - Miniflare options (config-parts.mjs)
 * @param {Record<string, string>} folders - slot name → this launch's folder (absolute)
 * @returns {Template | undefined}
 */
export function configTemplate(options, folders) {
  /** @type {[string, string][]} */
  const paths = Object.entries(folders).map(([name, folder]) => [pathSlot(name), folder]);
  for (const [, a] of paths) {
    if (!a.startsWith("/") || a.includes(SLOT_MARKER)) return undefined;
    for (const [, b] of paths)
      if (a !== b && (b.startsWith(a) || a.startsWith(b))) return undefined;
  }
  /** @type {[string, string][]} */
  const toSlots = paths.map(([slot, folder]) => [folder, slot]);
  /** @type {[string, string][]} */
  const bindings = [];
  const workers = /** @type {unknown[]} */ (options.workers ?? []);
  if (!Array.isArray(workers)) return undefined;
  const templated = workers.map((worker, index) => {
    const w = /** @type {Record<string, unknown>} */ (worker);
    // What the build reads (the Worker's modules) stays where it is: inside a launch's folder it
    // would be read from the build's folder instead.
    const read = [w.scriptPath, w.modulesRoot].filter((p) => typeof p === "string");
    if (read.some((p) => paths.some(([, folder]) => String(p).includes(folder)))) return undefined;
    const { bindings: given, ...rest } = w;
    const out = /** @type {Record<string, unknown>} */ (
      mapStrings(rest, (t) => replaceAll(t, toSlots))
    );
    if (given === undefined) return out;
    /** @type {Record<string, unknown>} */
    const slotted = {};
    for (const [name, value] of Object.entries(/** @type {Record<string, unknown>} */ (given))) {
      if (typeof value !== "string") {
        slotted[name] = value;
        continue;
      }
      if (!BINDING_NAME.test(name)) return undefined;
      const slot = `${SLOT_MARKER}:b:${index}:${name};`;
      bindings.push([slot, value]);
      slotted[name] = slot;
    }
    return { ...out, bindings: slotted };
  });
  if (templated.includes(undefined)) return undefined;
  const { workers: _workers, ...shared } = options;
  return {
    options: {
      .../** @type {Record<string, unknown>} */ (mapStrings(shared, (t) => replaceAll(t, toSlots))),
      workers: templated,
    },
    bindings,
    paths,
  };
}
