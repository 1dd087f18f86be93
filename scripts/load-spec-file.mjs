// Reads, bundles and validates one spec file with swagger-parser (Node only: its validator
// compiles schemas with `new Function`, which workerd forbids). Failures are turned into one
// message naming the file, the JSON pointer and the rule, so a broken spec fails the build with
// something a person can act on.
import SwaggerParser from "@apidevtools/swagger-parser";
import { relative } from "node:path";

const MAX_LINES = 12;

/**
 * @typedef {{ ok: true, doc: any, notes: string[] } | { ok: false, message: string }} LoadedSpecFile
 */

/**
 * Parses (JSON or YAML), bundles external refs and validates a spec file.
 * @param {string} file - absolute path
 * @param {(doc: unknown) => { pointer: string, message: string }[]} findProblems - the run-time
 *   structural check, used to locate problems swagger-parser reports without a pointer
 * @returns {Promise<LoadedSpecFile>}
 */
export async function loadSpecFile(file, findProblems) {
  // Named from the working folder (the repository root under npm; the user's folder for the
  // `code-mode-mcp` command, which bundles this file and so has no repository root).
  const inside = relative(process.cwd(), file);
  const name = inside && !inside.startsWith("..") ? inside : file;
  /** @type {any} */
  let doc;
  try {
    doc = await SwaggerParser.bundle(file);
  } catch (error) {
    // A broken $ref stops bundling before validation; the structural check says where it is.
    const parsed = await SwaggerParser.parse(file).catch(() => undefined);
    const located = parsed
      ? findProblems(parsed).map((p) => `  ${p.pointer}: ${p.message} (rule: $ref)`)
      : [];
    const detail = located.length > 0 ? `\n${located.slice(0, MAX_LINES).join("\n")}` : "";
    return { ok: false, message: `${name}: cannot be loaded: ${firstLine(error)}${detail}` };
  }
  const notes = [];
  const repaired = repairRangeKeys(doc);
  if (repaired > 0)
    notes.push(`normalized ${repaired} lower-case response range key(s) (4xx → 4XX)`);
  try {
    await SwaggerParser.validate(structuredClone(doc));
  } catch (error) {
    const version = doc.swagger ? `Swagger ${doc.swagger}` : `OpenAPI ${doc.openapi ?? "?"}`;
    const lines = detailLines(error);
    if (lines.length === 0) {
      lines.push(`${firstLine(error)}`);
      for (const p of findProblems(doc)) lines.push(`${p.pointer}: ${p.message} (rule: structure)`);
    }
    const shown = lines.slice(0, MAX_LINES).map((l) => `  ${l}`);
    if (lines.length > MAX_LINES) shown.push(`  … and ${lines.length - MAX_LINES} more`);
    return { ok: false, message: `${name}: invalid ${version} document:\n${shown.join("\n")}` };
  }
  return { ok: true, doc, notes };
}

/** Schema-validation errors (ajv) as `pointer: message (rule: keyword)`, most specific first. */
/** @param {any} error @returns {string[]} */
function detailLines(error) {
  const details = Array.isArray(error?.details) ? error.details : [];
  const seen = new Set();
  const lines = [];
  // oneOf/anyOf summaries repeat what their branches said; keep the concrete findings.
  const concrete = details.filter(
    (/** @type {any} */ d) => d.keyword !== "oneOf" && d.keyword !== "anyOf",
  );
  for (const d of concrete.length > 0 ? concrete : details) {
    const pointer = `#${d.instancePath ?? ""}`;
    const extra = d.params?.additionalProperty
      ? ` "${d.params.additionalProperty}"`
      : d.params?.allowedValues
        ? ` (${d.params.allowedValues.join(", ")})`
        : "";
    const line = `${pointer}: ${d.message}${extra} (rule: ${d.keyword})`;
    if (!seen.has(line)) lines.push(line);
    seen.add(line);
  }
  return lines;
}

/** Real specs (Cloudflare's) write `4xx`; OpenAPI says `4XX`. Harmless, so repaired, not refused. */
/** @param {any} doc */
function repairRangeKeys(doc) {
  let count = 0;
  for (const item of Object.values(doc?.paths ?? {})) {
    if (!item || typeof item !== "object") continue;
    for (const op of Object.values(item)) {
      const responses = op && typeof op === "object" ? op.responses : undefined;
      if (!responses || typeof responses !== "object") continue;
      for (const key of Object.keys(responses)) {
        if (!/^[1-5]xx$/.test(key)) continue;
        responses[key.toUpperCase()] = responses[key];
        delete responses[key];
        count++;
      }
    }
  }
  return count;
}

/** @param {any} error */
function firstLine(error) {
  return String(error?.message ?? error).split("\n")[0];
}
