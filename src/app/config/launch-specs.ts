/**
 * Specs compiled by a local launcher (`npm start` with `SPEC_FILE`, `code-mode-mcp serve --spec`)
 * reach the prebuilt Worker through one var, {@link LAUNCH_SPECS_VAR}, instead of a generated
 * copy of the Worker entry: the launcher validates and compiles the file in Node (swagger-parser
 * cannot run in workerd) and the Worker adds the result to the specs it was built with. The
 * var holds JSON text: spec name → compact spec. The launcher's o200k counts of what `/mcp`
 * lists come the same way, in {@link LAUNCH_TOKENS_VAR} (read by ../tools-list-count.ts).
 */
import { LAUNCH_SKILLS_VAR, LAUNCH_SPECS_VAR, LAUNCH_TOKENS_VAR } from "./setting-names";
import { keepSpecDocument } from "./spec-documents";

let memo: { text: string; base: object; specs: Readonly<Record<string, string>> } | undefined;

/**
 * The compiled specs the Worker serves: `base` plus those in the launch var, if any (a launch
 * spec replaces a built-in one of the same name, as `SPEC_FILE` always did).
 * @param base - the specs built into the Worker (`COMPACT_SPECS`)
 * @param env - the Worker's env
 */
export function specsWithLaunch(
  base: Readonly<Record<string, string>>,
  env: Cloudflare.Env,
): Readonly<Record<string, string>> {
  const text = (env as unknown as Record<string, unknown>)[LAUNCH_SPECS_VAR];
  if (typeof text !== "string" || text === "") return base;
  // Parsed once: the var holds a whole compiled spec (megabytes for a large API).
  if (memo?.text === text && memo.base === base) return memo.specs;
  const specs: Record<string, string> = { ...base };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  // Written only by the launchers; a broken value leaves the built-in specs (and SPEC's check
  // then names the spec it cannot find).
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
    const entries = Object.entries(parsed);
    for (const [name, compact] of entries) {
      const own = (entries.length === 1 && ownText(text, name)) || JSON.stringify(compact);
      specs[name] = own;
      // Its parse is at hand: the configuration check and the endpoints read it, not a new
      // parse of the same text each (spec-documents.ts).
      keepSpecDocument(own, compact);
    }
  }
  memo = { text, base, specs };
  return specs;
}

/**
 * The one spec's text inside the launch var, as a slice of it, or `undefined` when the var is not
 * `{"<name>":<spec>}` exactly (the launchers write it so: one spec, JSON.stringify, non-ASCII
 * escaped). Why: the var's text stays in the isolate's env for its life anyway, and V8 makes a
 * slice a view of it, where `JSON.stringify` of the parsed spec held a second copy (8 MB for
 * Cloudflare's spec, in UTF-16 since the spec has a few non-Latin-1 characters; issue #43).
 * @param text - the launch var (parsed already: valid JSON, one key)
 * @param name - its one key
 */
function ownText(text: string, name: string): string | undefined {
  const prefix = `{${JSON.stringify(name)}:`;
  return text.startsWith(prefix) && text.endsWith("}") ? text.slice(prefix.length, -1) : undefined;
}

/**
 * Whether an env entry takes part in the configuration memo key: the launch vars are left out
 * (written by the launcher, not settings; they change only with a new runtime).
 * @param name - an env entry's name
 */
export function isConfigKeyEntry(name: string): boolean {
  return name !== LAUNCH_SPECS_VAR && name !== LAUNCH_TOKENS_VAR && name !== LAUNCH_SKILLS_VAR;
}
