/**
 * A runtime's workerd configuration for this launch: the kept one when the configuration cache
 * has it (config-cache.mjs: no Miniflare, no Node process to build it), else built by the
 * configuration builder from the template (config-template.mjs) and kept; then a copy with this
 * launch's values in the slots (capnp-copy.mjs) and the folders it names made.
 *
 * A build runs in a folder of its own inside the server's private socket folder: Miniflare makes
 * the data and temporary folders it names while it builds, and there, not in this launch's
 * folders; which of the named paths are folders is read off that build and kept with it, and a
 * launch makes them in its own folders before workerd starts. The build's folder is removed after.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { copyMessage } from "./capnp-copy.mjs";
import { configKey, entryBound } from "./config-cache.mjs";
import {
  PROXY_SLOT,
  SLOT_MARKER,
  configTemplate,
  mapStrings,
  replaceAll,
} from "./config-template.mjs";

/** @typedef {ReturnType<typeof Buffer.alloc>} Bytes Node's Buffer (as `Buffer.alloc` gives it) */

/**
 * @typedef {import("./config-builder-client.mjs").Built} Built
 * @typedef {import("./config-cache.mjs").KeptConfig} KeptConfig
 */

/**
 * @typedef {object} ConfigSources
 * @property {{ build: (options: Record<string, unknown>, v8Flags: string, tmpdir?: string) => Promise<Built> }} builder
 * @property {{ read: (key: string, maxBytes?: number) => KeptConfig | undefined, write: (key: string, kept: KeptConfig) => boolean } | undefined} cache
 * @property {Record<string, string>} env - the builder's environment (part of the key)
 * @property {(size: number) => Bytes} [random] - Miniflare's proxy secret for this launch (tests)
 * @property {(key: string) => void} [onKey] - told each key and whether it was kept (tests, logs)
 */

/**
 * `bytes` with `slot` found exactly once.
 * @param {Uint8Array} bytes
 * @param {string} slot
 */
const holdsOnce = (bytes, slot) => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const first = buffer.indexOf(slot);
  return first !== -1 && buffer.indexOf(slot, first + 1) === -1;
};

/**
 * Builds the template's configuration in a folder of its own under `scratchParent` and returns it
 * with its slots (see the header), or undefined when Miniflare's proxy secret is not its slot
 * (a Miniflare this server does not know: such a configuration is used once, never kept).
 * @param {ConfigSources["builder"]} builder
 * @param {NonNullable<ReturnType<typeof configTemplate>>} template
 * @param {string} v8Flags
 * @param {string} scratchParent
 * @returns {Promise<KeptConfig & { kept: boolean }>}
 */
async function buildTemplate(builder, template, v8Flags, scratchParent) {
  const scratch = mkdtempSync(join(scratchParent, "build-"));
  try {
    /** @type {[string, string][]} */
    const toScratch = template.paths.map(([slot], i) => [slot, join(scratch, String(i))]);
    for (const [, folder] of toScratch) mkdirSync(folder, { recursive: true, mode: 0o700 });
    const tmpdir = join(/** @type {string} */ (toScratch[0]?.[1] ?? scratch), "tmp");
    mkdirSync(tmpdir, { recursive: true, mode: 0o700 });
    const options = /** @type {Record<string, unknown>} */ (
      mapStrings(template.options, (t) => replaceAll(t, toScratch))
    );
    const built = await builder.build(options, v8Flags, tmpdir);
    /** @type {string[]} */
    const folders = [];
    const config = copyMessage(built.config, {
      marker: Buffer.from(scratch),
      slots: toScratch.map(([slot, folder]) => [Buffer.from(folder), Buffer.from(slot)]),
      seen: (content) => {
        const text = content.toString("utf8").replace(/\0$/, "");
        if (!toScratch.some(([, folder]) => text.startsWith(`${folder}/`))) return;
        let folder = false;
        try {
          folder = statSync(text).isDirectory();
        } catch {
          // named, not made: workerd makes or needs no folder there
        }
        if (folder)
          folders.push(
            replaceAll(
              text,
              toScratch.map(([slot, f]) => [f, slot]),
            ),
          );
      },
    });
    return {
      command: built.command,
      args: built.args,
      config,
      folders,
      kept: holdsOnce(config, PROXY_SLOT) && !config.includes(Buffer.from(scratch)),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The kept configuration with this launch's values (see the header), its folders made.
 * @param {KeptConfig} kept
 * @param {NonNullable<ReturnType<typeof configTemplate>>} template
 * @param {(size: number) => Bytes} random
 * @returns {Built}
 */
export function fillTemplate(kept, template, random) {
  /** @type {[Bytes, Bytes][]} */
  const slots = [
    ...template.paths.map(([slot, folder]) => [Buffer.from(slot), Buffer.from(folder)]),
    ...template.bindings.map(([slot, value]) => [Buffer.from(slot), Buffer.from(value, "utf8")]),
    [Buffer.from(PROXY_SLOT), random(16)],
  ].map(([a, b]) => /** @type {[Bytes, Bytes]} */ ([a, b]));
  for (const named of kept.folders) {
    const folder = replaceAll(named, template.paths);
    // Only inside this launch's own folders, whatever an entry says.
    if (!template.paths.some(([, own]) => folder.startsWith(`${own}/`)) || folder.includes(".."))
      throw new Error(
        `the kept workerd configuration names a folder outside this server's: ${named}`,
      );
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  }
  return {
    command: kept.command,
    args: kept.args.map((arg) => replaceAll(arg, template.paths)),
    config: copyMessage(kept.config, { marker: Buffer.from(SLOT_MARKER), slots }),
  };
}

/**
 * The configuration of a runtime's options for this launch (see the header).
 * @param {object} what
 * @param {Record<string, unknown>} what.options - Miniflare options (config-parts.mjs)
 * @param {string} what.v8Flags
 * @param {{ sockets: string, persist?: string }} what.folders - this launch's private socket
 *   folder (builds run inside it) and its local data folder
 * @param {ConfigSources} sources
 * @returns {Promise<Built>}
 */
export async function runtimeConfig({ options, v8Flags, folders }, sources) {
  const random = sources.random ?? randomBytes;
  /** @type {Record<string, string>} */
  const named = {
    sockets: folders.sockets,
    ...(folders.persist ? { persist: folders.persist } : {}),
  };
  const template = configTemplate(options, named);
  if (!template) {
    // Built with this launch's values: used once, never kept.
    const built = await sources.builder.build(options, v8Flags, join(folders.sockets, "tmp"));
    return holdsOnce(built.config, PROXY_SLOT)
      ? {
          ...built,
          config: copyMessage(built.config, {
            marker: Buffer.from(PROXY_SLOT),
            slots: [[Buffer.from(PROXY_SLOT), random(16)]],
          }),
        }
      : built;
  }
  /** @type {string | undefined} */
  let key;
  /** @type {number | undefined} */
  let bound;
  try {
    if (sources.cache) {
      key = configKey({ options: template.options, v8Flags, env: sources.env });
      bound = entryBound(template.options);
    }
  } catch {
    // an input unreadable: built, not kept
    key = undefined;
  }
  let kept = key === undefined ? undefined : sources.cache?.read(key, bound);
  if (key !== undefined) sources.onKey?.(`${key} ${kept ? "kept" : "built"}`);
  if (!kept) {
    const made = await buildTemplate(sources.builder, template, v8Flags, folders.sockets);
    const { kept: keepable, ...rest } = made;
    if (!keepable) {
      // Not a template: its proxy secret is Miniflare's own random bytes; use it once.
      return {
        command: rest.command,
        args: rest.args,
        config: fillTemplate(rest, template, random).config,
      };
    }
    kept = rest;
    if (key !== undefined) sources.cache?.write(key, kept);
  }
  return fillTemplate(kept, template, random);
}
