// The operator's read-only skills in a deployment (`SKILLS_DIR=./skills npx code-mode-mcp deploy`,
// docs/skills.md): a Worker has no file system and a var holds at most 5 KB, so deploy reads and
// checks the folder here (like the local launcher, refusing a bad skill by name) and bundles the
// skills with the prebuilt Worker. It stages a folder of its own: the prebuilt worker.js as is,
// a module that sets the global the Worker reads (src/app/skills/operator-skills.ts), an entry
// that imports that module first and re-exports the Worker, and wrangler.json pointed at that
// entry, with the two modules uploaded as they are (no_bundle). The prebuilt files are never
// changed, so `npm start` from the same tree is unaffected.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readSkillFolders } from "./skills.mjs";

/**
 * Reads and checks the operator's skills folder.
 * @param {string} dir - SKILLS_DIR
 * @param {{ readSkillsDir: Function }} product - the product module (its checks)
 * @returns {{ ok: true, skills: unknown[] } | { ok: false, message: string }}
 */
export function readOperatorSkills(dir, product) {
  let folders;
  try {
    folders = readSkillFolders(resolve(dir));
  } catch (error) {
    return { ok: false, message: /** @type {Error} */ (error).message };
  }
  // The default size limits: the Worker checks again with its own SKILLS_MAX_* vars.
  return product.readSkillsDir(folders, {});
}

/**
 * Stages the prebuilt Worker with the skills bundled.
 * @param {object} options
 * @param {string} options.config - the prebuilt Worker's wrangler.json
 * @param {unknown[]} options.skills - the checked skills
 * @param {string} options.key - the global's `Symbol.for` key (BUNDLED_SKILLS_KEY)
 * @param {string} options.tmp - where the staging folder is made
 * @returns {{ dir: string, config: string }} the folder (the caller removes it) and its config
 */
export function stageWithSkills({ config, skills, key, tmp }) {
  const parsed = JSON.parse(readFileSync(config, "utf8"));
  const main = parsed.main ?? "worker.js";
  const dir = mkdtempSync(join(tmp, "code-mode-mcp-deploy-"));
  copyFileSync(join(dirname(config), main), join(dir, "worker.js"));
  // The JSON as one string literal: the Worker parses and checks it (JSON.stringify of a string
  // escapes every quote, backslash and line end, so no skill's text can end the literal).
  writeFileSync(
    join(dir, "operator-skills.js"),
    `// Written by code-mode-mcp deploy from SKILLS_DIR: the operator's read-only skills.\n` +
      `globalThis[Symbol.for(${JSON.stringify(key)})] = ${JSON.stringify(JSON.stringify(skills))};\n`,
  );
  // Imported first, so the global is set before the Worker's module runs.
  writeFileSync(
    join(dir, "entry.js"),
    'import "./operator-skills.js";\nexport * from "./worker.js";\nexport { default } from "./worker.js";\n',
  );
  const staged = {
    ...parsed,
    main: "entry.js",
    no_bundle: true,
    find_additional_modules: true,
    rules: [{ type: "ESModule", globs: ["*.js"] }],
  };
  writeFileSync(join(dir, "wrangler.json"), `${JSON.stringify(staged, null, 2)}\n`);
  return { dir, config: join(dir, "wrangler.json") };
}
