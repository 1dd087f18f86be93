// `code-mode-mcp skills …`: a principal's saved skills on a running server, over its HTTP API
// (/api/skills, src/app/skills/skills-api.ts): list, show, delete, roll back, export to Agent
// Skills folders and import from them; and `pack`, which needs no server: a folder of operator
// skills bundled as JSON for a library project's Worker. Whose skills: the caller the server sees, so the key or
// token comes from the environment (MCP_API_KEY, or CODE_MODE_MCP_TOKEN for an OAuth access
// token), never from a flag.
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";

/** The subcommands and their positional arguments (after the subcommand). */
export const SKILLS_USAGE = `npx code-mode-mcp skills list
  npx code-mode-mcp skills show <name> [version]
  npx code-mode-mcp skills delete <name>
  npx code-mode-mcp skills rollback <name> <version>
  npx code-mode-mcp skills export <folder>
  npx code-mode-mcp skills import <folder>
  npx code-mode-mcp skills pack <folder> <file.json>
(--url <server>, default http://127.0.0.1:$PORT or :8787; MCP_API_KEY or CODE_MODE_MCP_TOKEN from the environment)`;

/** Largest file read from an import folder: a SKILL.md or a script (the server bounds them again). */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Most bytes read from an import folder in all: the server's import limit
 * (src/app/skills/skills-api.ts). A skill pack is someone else's folder; one holding a
 * `node_modules` would otherwise be read whole into memory before the server refused it.
 */
const MAX_IMPORT_BYTES = 4 * 1024 * 1024;

/**
 * Runs one `skills` subcommand.
 * @param {{ positional: string[], url: string | undefined, env: NodeJS.ProcessEnv, out: (line: string) => void, err: (line: string) => void, fetch?: typeof fetch }} options
 * @returns {Promise<number>} the exit code
 */
export async function skillsCommand({
  positional,
  url,
  env,
  out: print,
  err: printError,
  fetch = globalThis.fetch,
}) {
  // Every line shows text the server sent (a program's error, a skill's code): printable only.
  const out = (/** @type {string} */ line) => print(printable(line));
  const err = (/** @type {string} */ line) => printError(printable(line));
  const [sub, first, second] = positional;
  const base = (url ?? `http://127.0.0.1:${env.PORT ?? "8787"}`).replace(/\/+$/, "");
  const token = env.CODE_MODE_MCP_TOKEN ?? env.MCP_API_KEY;
  /**
   * @param {string} path
   * @param {RequestInit} [init]
   * @returns {Promise<any>}
   */
  const call = async (path, init = {}) => {
    let response;
    try {
      response = await fetch(`${base}/api/skills${path}`, {
        ...init,
        headers: {
          "content-type": "application/json",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      });
    } catch (error) {
      throw new Error(
        `cannot reach ${base} (${/** @type {Error} */ (error).message}).\n  Fix: start the server (npm start) or pass --url <its address>.`,
        { cause: error },
      );
    }
    const body = await response.json().catch(() => ({}));
    if (!response.ok)
      throw new Error(
        `${body?.error?.message ?? `HTTP ${response.status}`}\n  Fix: ${body?.error?.fix ?? "see the server's log"}`,
      );
    return body;
  };
  try {
    if (sub === "list") {
      const { skills } = await call("");
      if (skills.length === 0) out("No skills yet: a program saves one with skills.save().");
      for (const s of skills)
        out(
          `${s.name}  v${s.version}${s.latest !== s.version ? ` (latest v${s.latest})` : ""}${s.readOnly ? "  read-only (operator)" : ""}${s.tool ? `  ${s.tool} only` : ""}  uses ${s.uses ?? 0}  ${oneLine(s.description)}${s.lastError ? `\n    last error (v${s.lastError.version}): ${oneLine(s.lastError.message)}` : ""}`,
        );
      return 0;
    }
    if (sub === "show" && first) {
      const query = second ? `?version=${encodeURIComponent(second)}` : "";
      const { skill, versions } = await call(`/${encodeURIComponent(first)}${query}`);
      out(`${skill.name} v${skill.version}: ${skill.description}`);
      out(
        `versions: ${versions.map((/** @type {any} */ v) => `v${v.version}${v.current ? " (current)" : ""} ${new Date(v.savedAt).toISOString()}`).join(", ")}`,
      );
      out(`input: ${JSON.stringify(skill.input)}`);
      if (skill.output) out(`output: ${JSON.stringify(skill.output)}`);
      out(skill.code);
      return 0;
    }
    if (sub === "delete" && first) {
      const answer = await call(`/${encodeURIComponent(first)}`, { method: "DELETE" });
      out(answer?.note ?? `Deleted skill "${first}" (every version); new runs no longer find it.`);
      return 0;
    }
    if (sub === "rollback" && first && second) {
      const version = Number(second);
      const { skill } = await call(`/${encodeURIComponent(first)}/rollback`, {
        method: "POST",
        body: JSON.stringify({ version }),
      });
      out(`Skill "${skill.name}" is at version ${skill.version} again; runs use it from now on.`);
      return 0;
    }
    if (sub === "export" && first) {
      const { folders } = await call("/export");
      const root = resolve(first);
      mkdirSync(root, { recursive: true });
      for (const folder of folders)
        for (const [path, text] of Object.entries(folder.files))
          writeInside(root, join(String(folder.folder), path), String(text));
      out(`Exported ${folders.length} skill(s) to ${root}.`);
      return 0;
    }
    if (sub === "pack" && first && second) {
      // No server: the operator's read-only skills of a library project (`init`), bundled at
      // build time as JSON its Worker imports (`skills: { readOnly }`, docs/skills.md), which
      // checks each like a save when the server is created.
      const folders = readSkillFolders(resolve(first));
      // Not through a link planted where the bundle goes (a cloned project's `skills.json ->
      // ~/.bashrc`): the bundle's lines hold text the skill folders chose.
      const target = resolve(second);
      writeInside(dirname(target), basename(target), `${JSON.stringify(folders, null, 2)}\n`);
      out(`Packed ${folders.length} skill folder(s) from ${resolve(first)} into ${target}.`);
      return 0;
    }
    if (sub === "import" && first) {
      const folders = readSkillFolders(resolve(first));
      const { imported } = await call("/import", {
        method: "POST",
        body: JSON.stringify({ folders }),
      });
      for (const s of imported) out(`Imported ${s.name} as version ${s.version}.`);
      return 0;
    }
  } catch (error) {
    err(`code-mode-mcp skills ${sub}: ${/** @type {Error} */ (error).message}`);
    return 1;
  }
  err(
    `code-mode-mcp skills: "${positional.join(" ")}" is not a skills command.\n  Usage: ${SKILLS_USAGE}`,
  );
  return 2;
}

/**
 * Writes `text` to `path` under `root`, refusing to leave it: no `..` and no symbolic link on
 * the way, the file included. The folder may hold what an imported skill pack brought (a link
 * `blockedIn -> pack/inner` whose `SKILL.md` links to ~/.bashrc is skipped by the import, and
 * would make an export write a description the pack chose into that file).
 * @param {string} root - the export folder (absolute, existing)
 * @param {string} path - relative to `root`
 * @param {string} text
 */
export function writeInside(root, path, text) {
  const file = resolve(root, path);
  if (!file.startsWith(root + sep)) throw new Error(`refused to write ${file}: outside ${root}.`);
  const parts = relative(root, file).split(sep);
  let at = root;
  for (const [index, part] of parts.entries()) {
    at = join(at, part);
    const found = lstatSync(at, { throwIfNoEntry: false });
    if (found?.isSymbolicLink())
      throw new Error(
        `refused to write ${file}: ${at} is a symbolic link.\n  Fix: write into a new folder or file, or remove the link.`,
      );
    if (index < parts.length - 1 && !found) mkdirSync(at);
  }
  // O_NOFOLLOW: a link made between the check and the write is refused too.
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0),
    0o644,
  );
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * The skill folders under `root` (each sub-folder with a SKILL.md), with their text files.
 * @param {string} root
 * @returns {{ folder: string, files: Record<string, string> }[]}
 */
export function readSkillFolders(root) {
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(
      `${root} is not a folder.\n  Fix: give the folder that holds one folder per skill (<name>/SKILL.md).`,
    );
  const folders = [];
  let total = 0;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(root, entry.name);
    /** @type {Record<string, string>} */
    const files = {};
    const walk = (/** @type {string} */ at) => {
      for (const item of readdirSync(at, { withFileTypes: true })) {
        const path = join(at, item.name);
        if (item.isDirectory()) walk(path);
        else if (item.isFile() && (item.name === "SKILL.md" || /\.(js|mjs)$/.test(item.name))) {
          const { size } = statSync(path);
          if (size > MAX_FILE_BYTES)
            throw new Error(
              `${path} is over ${MAX_FILE_BYTES} bytes.\n  Fix: a skill's files are small text; remove this one.`,
            );
          total += size;
          if (total > MAX_IMPORT_BYTES)
            throw new Error(
              `${root} holds over ${MAX_IMPORT_BYTES} bytes of SKILL.md and .js files (the server's import limit), at ${path}.\n  Fix: import fewer skills at once, or remove what is not a skill (each folder: SKILL.md and scripts/<name>.js).`,
            );
          files[relative(dir, path).split(sep).join("/")] = readFileSync(path, "utf8");
        }
      }
    };
    walk(dir);
    folders.push({ folder: entry.name, files });
  }
  return folders;
}

/**
 * `text` with the characters a terminal would act on written as `\\u` escapes: escape sequences
 * (a program's error can hold ESC: `]52;` sets the clipboard, others rewrite the screen) and
 * bidirectional overrides that reorder what is shown. Tabs and newlines stay.
 * @param {string} text
 */
export function printable(text) {
  return String(text).replace(
    // oxlint-disable-next-line no-control-regex -- matching control characters is the point
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** @param {string} text */
function oneLine(text) {
  const line = String(text).replace(/\s+/g, " ").trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
