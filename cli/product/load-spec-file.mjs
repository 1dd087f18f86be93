// Reads, bundles and validates one spec file with swagger-parser (Node only: its validator
// compiles schemas with `new Function`, which workerd forbids). Failures are turned into one
// message naming the file, the JSON pointer and the rule, so a broken spec fails the build with
// something a person can act on.
import SwaggerParser from "@apidevtools/swagger-parser";
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { oneLineText, terminalText } from "./terminal-text.mjs";

const MAX_LINES = 12;

/**
 * @typedef {{ ok: true, doc: any, notes: string[], files: string[], remote: boolean } | { ok: false, message: string }} LoadedSpecFile
 *   `files`: the local files the bundle read (the spec file among them); `remote`: whether it read
 *   anything else (an http `$ref`), so a cache of the result could go stale unseen
 */

/**
 * Parses (JSON or YAML), bundles external refs and validates a spec file.
 * @param {string} file - absolute path
 * @param {(doc: unknown) => { pointer: string, message: string }[]} findProblems - the run-time
 *   structural check, used to locate problems swagger-parser reports without a pointer
 * @returns {Promise<LoadedSpecFile>}
 */
export async function loadSpecFile(file, findProblems) {
  const loaded = await loadChecked(file, findProblems);
  // The message quotes the spec (its keys as JSON pointers, its values): shown on a terminal.
  return loaded.ok ? loaded : { ok: false, message: terminalText(loaded.message) };
}

/**
 * {@link loadSpecFile} before its message is made safe for a terminal.
 * @param {string} file
 * @param {(doc: unknown) => { pointer: string, message: string }[]} findProblems
 * @returns {Promise<LoadedSpecFile>}
 */
async function loadChecked(file, findProblems) {
  // Named from the working folder (the repository root under npm; the user's folder for the
  // `code-mode-mcp` command, which bundles this file and so has no repository root).
  const inside = relative(process.cwd(), file);
  const name = inside && !inside.startsWith("..") ? inside : file;
  /** @type {any} */
  let doc;
  const parser = new SwaggerParser();
  try {
    doc = await parser.bundle(file);
  } catch (error) {
    // Not JSON or YAML at all: say where the text breaks (a .json file is held to JSON: YAML
    // would read a broken JSON document as something else).
    const syntax = (await jsonSyntaxProblem(file)) ?? syntaxProblem(file, error);
    if (syntax) return { ok: false, message: `${name}: cannot be parsed:\n  ${syntax}` };
    // A broken $ref stops bundling before validation; the structural check says where it is.
    const parsed = await SwaggerParser.parse(file).catch(() => undefined);
    const notOpenApi = notOpenApiProblem(await readDocument(file));
    if (notOpenApi)
      return { ok: false, message: `${name}: not an OpenAPI document:\n  ${notOpenApi}` };
    const located = parsed
      ? findProblems(parsed).map(
          (p) => `  ${oneLineText(`${p.pointer}: ${p.message}`)} (rule: $ref)`,
        )
      : findProblems(await readDocument(file)).map(
          (p) => `  ${oneLineText(`${p.pointer}: ${p.message}`)} (rule: structure)`,
        );
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
      for (const p of findProblems(doc))
        lines.push(`${oneLineText(`${p.pointer}: ${p.message}`)} (rule: structure)`);
    }
    const shown = lines.slice(0, MAX_LINES).map((l) => `  ${l}`);
    if (lines.length > MAX_LINES) shown.push(`  … and ${lines.length - MAX_LINES} more`);
    return { ok: false, message: `${name}: invalid ${version} document:\n${shown.join("\n")}` };
  }
  const files = parser.$refs.paths("file");
  const remote = parser.$refs.paths().length > files.length;
  return { ok: true, doc, notes, files, remote };
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
    // One line each: a key of the spec (the pointer) may hold a line break of its own.
    const line = `${oneLineText(`${pointer}: ${d.message}${extra}`)} (rule: ${d.keyword})`;
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

/**
 * A parse error of the file's text as `line L, column C: reason (rule: YAML|JSON syntax)`, or
 * undefined when the text parsed (the failure was elsewhere).
 * @param {string} file
 * @param {any} error - swagger-parser's
 * @returns {string | undefined}
 */
function syntaxProblem(file, error) {
  const text = String(error?.message ?? error);
  if (!text.startsWith("Error parsing ")) return undefined;
  const reason = text.replace(/^Error parsing [^:]*: /, "").split("\n")[0] ?? text;
  const at = reason.match(/\((\d+):(\d+)\)\s*$/) ?? reason.match(/line (\d+) column (\d+)/);
  const rule = /\.json$/i.test(file) ? "JSON syntax" : "YAML syntax";
  const what = reason.replace(/\s*\(\d+:\d+\)\s*$/, "");
  return at ? `line ${at[1]}, column ${at[2]}: ${what} (rule: ${rule})` : `${what} (rule: ${rule})`;
}

/**
 * Why a parsed document is not OpenAPI at all, with its pointer and rule, or undefined.
 * @param {unknown} doc
 * @returns {string | undefined}
 */
function notOpenApiProblem(doc) {
  if (doc === undefined) return undefined;
  if (doc === null || typeof doc !== "object" || Array.isArray(doc))
    return `#: the document is ${Array.isArray(doc) ? "an array" : typeof doc}, not an object (rule: type)`;
  const record = /** @type {Record<string, unknown>} */ (doc);
  if (record.openapi === undefined && record.swagger === undefined) {
    const keys = Object.keys(record).slice(0, 5).join(", ");
    return `#: must have the property "openapi" (3.x) or "swagger" (2.0); it has ${oneLineText(keys) || "no properties"} (rule: required)`;
  }
  const version = String(record.openapi ?? record.swagger);
  if (!/^(2\.0|3\.[01]\.\d+)$/.test(version))
    return `#/${record.openapi === undefined ? "swagger" : "openapi"}: "${oneLineText(version)}" is not a supported version: 2.0, 3.0.x or 3.1.x (rule: enum)`;
  return undefined;
}

/**
 * The file parsed as JSON or YAML by swagger-parser's own parser (its base class, json-schema-ref-
 * parser, which reads any document; SwaggerParser's `parse` also refuses non-OpenAPI ones without
 * saying why), or undefined if it does not parse.
 * @param {string} file
 * @returns {Promise<unknown>}
 */
async function readDocument(file) {
  const base = Object.getPrototypeOf(SwaggerParser.prototype);
  try {
    return await base.parse.call(new SwaggerParser(), file);
  } catch {
    return undefined;
  }
}

/**
 * For a .json file whose text is not JSON: `line L, column C: reason (rule: JSON syntax)`.
 * @param {string} file
 * @returns {Promise<string | undefined>}
 */
async function jsonSyntaxProblem(file) {
  if (!/\.json$/i.test(file)) return undefined;
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const message = String(/** @type {Error} */ (error).message);
    const position = jsonErrorPosition(text, message);
    const what = message
      .replace(/, (?:\.\.\.)?"[\s\S]*" is not valid JSON$/, "")
      .replace(/ in JSON at position \d+[\s\S]*$/, "");
    if (position === undefined) return `${what} (rule: JSON syntax)`;
    const before = text.slice(0, position).split("\n");
    return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}: ${what} (rule: JSON syntax)`;
  }
}

/**
 * Where V8's JSON.parse message says the text breaks: "at position N", or the quoted context
 * (`…"<text around it>" is not valid JSON`) found in the text with the unexpected token in it.
 * @param {string} text
 * @param {string} message
 * @returns {number | undefined}
 */
function jsonErrorPosition(text, message) {
  const at = message.match(/at position (\d+)/);
  if (at) return Number(at[1]);
  if (/Unexpected end of JSON input/.test(message)) return text.trimEnd().length;
  const context = message.match(/"(?:\.\.\.)?([\s\S]*?)(?:\.\.\.)?" is not valid JSON/)?.[1];
  const found = context === undefined ? -1 : text.indexOf(context);
  if (context === undefined || found < 0) return undefined;
  const token = message.match(/Unexpected token '([^']+)'/)?.[1];
  const offset = token === undefined ? -1 : context.lastIndexOf(token);
  return found + Math.max(offset, 0);
}
