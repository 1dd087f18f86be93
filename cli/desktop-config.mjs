// `code-mode-mcp desktop-config`: the `mcpServers` entry a desktop client (Claude Desktop and
// others that read the same JSON) needs to start this server over stdio, with absolute paths:
// the Node.js running now (22 or later, which the server needs; a desktop client's PATH may find
// an older one or none) and this package's own bin, so the launch needs no PATH, no npx and no
// registry. Printed, or merged into a client's config file with `--write <file>`.
import {
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, extname, resolve, sep } from "node:path";

/** What a credential placeholder says; the user replaces it (flags never carry credentials). */
export const TOKEN_PLACEHOLDER = "your-api-token";

/**
 * @typedef {object} DesktopEntry
 * @property {string} command - absolute path of Node.js
 * @property {string[]} args - the bin's absolute path, then `--stdio` and the settings
 * @property {Record<string, string>} [env] - credential placeholders
 */

/**
 * Builds the entry, or says what is missing.
 * @param {object} options
 * @param {Record<string, string>} options.settings - what the flags set (SPEC_FILE, API_BASE_URL,
 *   UPSTREAM_MCP_URL, PORT)
 * @param {string | undefined} options.route - `--route`, if given
 * @param {string | undefined} options.name - `--name`, if given
 * @param {string} options.cwd - relative paths are resolved against it
 * @param {string} options.node - absolute path of the Node.js to start
 * @param {string} options.bin - absolute path of bin/code-mode-mcp.mjs
 * @param {(path: string) => boolean} [options.exists] - whether a file exists (tests inject it)
 * @returns {{ ok: true, name: string, entry: DesktopEntry } | { ok: false, message: string }}
 */
export function desktopEntry({ settings, route, name, cwd, node, bin, exists = existsSync }) {
  const spec = settings.SPEC_FILE;
  const upstream = settings.UPSTREAM_MCP_URL;
  if (spec === undefined && upstream === undefined)
    return {
      ok: false,
      message:
        "desktop-config needs --spec <file> or --upstream <url>: what the client's server serves.\n  Fix: npx code-mode-mcp desktop-config --spec ./openapi.yaml --base-url https://api.example.com",
    };
  const args = [bin, "--stdio"];
  if (spec !== undefined) {
    // A client starts servers from a folder of its own: only an absolute path finds the spec.
    const absolute = resolve(cwd, spec);
    if (!exists(absolute))
      return {
        ok: false,
        message: `--spec: ${absolute} does not exist.\n  Fix: pass the path of your OpenAPI file (JSON or YAML); check it with npx code-mode-mcp check <file>.`,
      };
    args.push("--spec", absolute);
  }
  if (settings.API_BASE_URL !== undefined) args.push("--base-url", settings.API_BASE_URL);
  if (upstream !== undefined) args.push("--upstream", upstream);
  if (settings.PORT !== undefined) args.push("--port", settings.PORT);
  if (route !== undefined) args.push("--route", route);
  /** @type {DesktopEntry} */
  const entry = { command: node, args };
  if (spec !== undefined) entry.env = { API_TOKEN: TOKEN_PLACEHOLDER };
  return { ok: true, name: name ?? defaultName(spec), entry };
}

/**
 * The server's name in `mcpServers` when `--name` is not given: the spec file's name
 * (`./stripe-api.yaml` → `stripe-api`), or `code` for an upstream alone.
 * @param {string | undefined} spec
 * @returns {string}
 */
export function defaultName(spec) {
  if (spec === undefined) return "code";
  const stem = basename(spec, extname(spec))
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return stem === "" ? "my-api" : stem;
}

/**
 * The whole `{ "mcpServers": { name: entry } }` document, as printed.
 * @param {string} name
 * @param {DesktopEntry} entry
 * @returns {string}
 */
export function desktopJson(name, entry) {
  return `${JSON.stringify({ mcpServers: { [name]: entry } }, null, 2)}\n`;
}

/**
 * Merges the entry into a client config's text: every other key and server is kept; a server of
 * the same name is replaced, keeping its `env` values (the real token put there by hand wins
 * over the placeholder).
 * @param {string | undefined} text - the file's text, or `undefined` when there is no file yet
 * @param {string} name
 * @param {DesktopEntry} entry
 * @param {string} file - named in messages
 * @returns {{ ok: true, text: string, replaced: boolean } | { ok: false, message: string }}
 */
export function mergeDesktopConfig(text, name, entry, file) {
  /** @type {unknown} */
  let config = {};
  if (text !== undefined && text.trim() !== "") {
    try {
      config = JSON.parse(text);
    } catch (error) {
      return {
        ok: false,
        message: `${file} is not valid JSON (${/** @type {Error} */ (error).message}); nothing was written.\n  Fix: repair the file, or run desktop-config without --write and paste the entry in by hand.`,
      };
    }
  }
  if (!isObject(config) || (config.mcpServers !== undefined && !isObject(config.mcpServers)))
    return {
      ok: false,
      message: `${file}: expected a JSON object whose "mcpServers" is an object; nothing was written.\n  Fix: check that this is the client's config file (Claude Desktop: claude_desktop_config.json).`,
    };
  const servers = /** @type {Record<string, unknown>} */ (config.mcpServers ?? {});
  const old = servers[name];
  const oldEnv = isObject(old) && isObject(old.env) ? old.env : undefined;
  /** @type {Record<string, unknown>} */
  const merged = { ...entry };
  if (entry.env !== undefined || oldEnv !== undefined) merged.env = { ...entry.env, ...oldEnv };
  // Defined as data, so a server named "__proto__" is a key like any other.
  Object.defineProperty(servers, name, {
    value: merged,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  config.mcpServers = servers;
  return { ok: true, text: `${JSON.stringify(config, null, 2)}\n`, replaced: old !== undefined };
}

/**
 * `--write <file>`: merges the entry into the file, keeping a copy of the old one as
 * `<file>.bak` and replacing the file in one rename (a client reading it meanwhile sees the old
 * or the new text, never half), with the old file's permissions (it may hold tokens).
 * @param {string} file - absolute path
 * @param {string} name
 * @param {DesktopEntry} entry
 * @returns {{ ok: true, replaced: boolean } | { ok: false, message: string }}
 */
export function writeDesktopConfig(file, name, entry) {
  if (!existsSync(dirname(file)))
    return {
      ok: false,
      message: `--write: the folder ${dirname(file)} does not exist; nothing was written.\n  Fix: check the path (Claude Desktop: ~/Library/Application Support/Claude/claude_desktop_config.json on macOS, %APPDATA%\\Claude\\claude_desktop_config.json on Windows; start the client once if the folder is missing).`,
    };
  const before = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  const merged = mergeDesktopConfig(before, name, entry, file);
  if (!merged.ok) return merged;
  const mode = before === undefined ? 0o600 : statSync(file).mode & 0o777;
  if (before !== undefined) copyFileSync(file, `${file}.bak`);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, merged.text, { mode });
  renameSync(temporary, file);
  return { ok: true, replaced: merged.replaced };
}

/**
 * Runs the command: prints the JSON, or writes it with `--write`. Notes go to `progress`
 * (stderr), so stdout is the JSON alone.
 * @param {object} options
 * @param {Record<string, string>} options.settings
 * @param {string | undefined} options.route
 * @param {string | undefined} options.name
 * @param {string | undefined} options.write
 * @param {string} options.bin
 * @param {(line: string) => void} options.progress
 * @param {(text: string) => void} options.print
 * @returns {number} the exit code
 */
export function runDesktopConfig({ settings, route, name, write, bin, progress, print }) {
  const label = "code-mode-mcp desktop-config";
  const made = desktopEntry({
    settings,
    route,
    name,
    cwd: process.cwd(),
    node: process.execPath,
    bin,
  });
  if (!made.ok) {
    progress(`${label}: ${made.message}`);
    return 2;
  }
  // npx runs packages from a cache npm may clear: a path into it would break the client later.
  if (bin.includes(`${sep}_npx${sep}`))
    progress(
      `${label}: note: this copy runs from npx's cache (${bin}), which npm may clear. Install the package (npm install -g <tarball or code-mode-mcp>) and run code-mode-mcp desktop-config from it.`,
    );
  if (write === undefined) {
    print(desktopJson(made.name, made.entry));
  } else {
    const file = resolve(write);
    const written = writeDesktopConfig(file, made.name, made.entry);
    if (!written.ok) {
      progress(`${label}: ${written.message}`);
      return 1;
    }
    progress(
      `${label}: ${written.replaced ? "replaced" : "added"} the server "${made.name}" in ${file}${existsSync(`${file}.bak`) ? ` (the previous file is ${file}.bak)` : ""}; restart the client to load it.`,
    );
  }
  if (made.entry.env !== undefined)
    progress(
      `${label}: put your API's credential in env.API_TOKEN (${TOKEN_PLACEHOLDER} is a placeholder; remove it if the API needs none). Credentials never go in args.`,
    );
  return 0;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
