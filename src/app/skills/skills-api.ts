/**
 * `/api/skills`: the caller's saved skills, managed over HTTP (the CLI's `skills` command uses
 * it; docs/skills.md). The router protects it like `/mcp` (API key, OAuth) and names the owner;
 * every route reads and writes only that owner's skills, plus the operator's read-only ones.
 *
 * - `GET /api/skills`: `{ skills }`, each `{ name, description, version, latest, uses, lastError?, readOnly? }`
 * - `GET /api/skills/<name>[?version=n]`: `{ skill, versions }` (the code of the current version or
 *   of version n, and every kept version)
 * - `DELETE /api/skills/<name>`: `{ deleted: true, name, note? }`; new runs no longer find it
 *   (`note`: the caller's own skill hidden by an operator's of that name is deleted, the
 *   operator's stays callable)
 * - `POST /api/skills/<name>/rollback` with `{ "version": n }`: `{ skill }`, now current
 * - `GET /api/skills/export`: `{ folders }`, each `{ folder, files }` in the Agent Skills layout
 *   (agent-skill-format.ts); the operator's skills are not exported
 * - `POST /api/skills/import` with `{ folders }`: all or none: every folder is checked like a
 *   save first, and one bad folder (or one too many skills) refuses the whole import (400 naming
 *   it); else all are saved in one step (a new version when the name exists):
 *   `{ imported: [{ name, version }] }`
 *
 * (`export` and `import` are reserved words, so no skill can be named like them.)
 */
import { CodeModeError } from "../../errors";
import { isRecord } from "../../is-record";
import { readSkillFolder, skillFolder } from "../../codemode/skills/agent-skill-format";
import { resolveSkills } from "../../codemode/skills/resolved-skills";
import type { SkillsOptions } from "../../codemode/skills/skills-options";
import { HttpError } from "../errors/http-error";
import { cappedBodyText } from "../errors/capped-body";
import { exceedsJsonShape, jsonShape, jsonShapeRefusal } from "../../mcp/common/json-shape";
import { isWellFormedJson } from "../../mcp/common/json-well-formed";

/** The route; one skill is at `${SKILLS_ROUTE}/<name>`. */
export const SKILLS_ROUTE = "/api/skills";

/**
 * Largest import body, in bytes: 100 skills of 32,000 characters fit with room; the local
 * front's limit for this route is the same (cli/local-server/front/route-bodies.mjs).
 */
const MAX_IMPORT_BYTES = 4 * 1024 * 1024;

/**
 * Answers a skills request.
 * @param request - a request under {@link SKILLS_ROUTE}
 * @param skills - the product's skills option, undefined with `SKILLS=off`
 * @param owner - whose skills (skill-owner.ts), undefined when the caller has none
 */
export async function skillsApi(
  request: Request,
  skills: SkillsOptions | undefined,
  owner: string | undefined,
): Promise<Response> {
  if (!skills)
    throw new HttpError(404, "skills_off", "Saved skills are off (SKILLS=off).", "Set SKILLS=on.");
  if (owner === undefined)
    throw new HttpError(
      403,
      "unauthorized",
      "This request names no principal, so it has no skills (with FORWARD_CALLER_TOKEN=on, send your token).",
      "Send `Authorization: Bearer <token>` as for /mcp.",
    );
  const ready = resolveSkills(skills);
  if (!ready)
    throw new HttpError(404, "skills_off", "Saved skills are off (SKILLS=off).", "Set SKILLS=on.");
  const { store, limits } = ready;
  const url = new URL(request.url);
  const rest = url.pathname.slice(SKILLS_ROUTE.length + 1);
  const [rawName, action] = rest.split("/", 3);
  const name = decodedName(rawName ?? "");
  const method = request.method;
  try {
    if (rest === "" && method === "GET") return Response.json({ skills: await store.list(owner) });
    if (rest === "export" && method === "GET") {
      const listed = (await store.list(owner)).filter((s) => !s.readOnly);
      const found = await Promise.all(listed.map((s) => store.get(owner, s.name)));
      return Response.json({ folders: found.flatMap((s) => (s ? [skillFolder(s)] : [])) });
    }
    if (rest === "import" && method === "POST") {
      const body = await jsonBody(request);
      const folders =
        isRecord(body) && Array.isArray(body["folders"]) ? body["folders"] : undefined;
      if (!folders)
        throw new HttpError(
          400,
          "invalid_request",
          'The import body is not { folders: [{ folder, files: { "SKILL.md": …, "scripts/<name>.js": … } }] }.',
          "Send what GET /api/skills/export answers (the CLI's `skills import <dir>` builds it from folders).",
        );
      // Every folder is checked before anything is saved: a bad one refuses the whole import.
      // One folder at a time, the thread given to other requests between them: each check
      // parses and instruments the skill's code, and 100 folders of 31,000 characters held the
      // local host's thread for every client 6-7 s in one piece.
      const drafts = [];
      for (const [index, folder] of folders.entries()) {
        if (index > 0) await otherRequestsTurn();
        const files = isRecord(folder) && isRecord(folder["files"]) ? folder["files"] : undefined;
        if (!files || !Object.values(files).every((f) => typeof f === "string"))
          throw new CodeModeError(
            "skill_invalid",
            `Folder ${index + 1} of the import has no { files } of text.`,
          );
        const label = typeof folder["folder"] === "string" ? folder["folder"] : `#${index + 1}`;
        drafts.push(
          readSkillFolder({ folder: label, files: files as Record<string, string> }, limits),
        );
      }
      const listed = await store.list(owner);
      for (const draft of drafts)
        if (listed.some((s) => s.readOnly && s.name === draft.name))
          throw new CodeModeError(
            "skill_invalid",
            `Skill "${draft.name}" is a read-only skill the operator ships with this server: it cannot be overwritten. Rename the folder's skill and import again.`,
          );
      const names = new Set<string>();
      for (const draft of drafts) {
        if (names.has(draft.name))
          throw new CodeModeError(
            "skill_invalid",
            `Two folders of the import hold a skill named "${draft.name}": import one of them.`,
          );
        names.add(draft.name);
      }
      // All or none: the product's store (durable-skill-store.ts) saves them in one step of the
      // principal's Durable Object, so a refusal (too many skills) leaves nothing half-imported.
      const saved = await store.saveAll!(owner, drafts, limits);
      return Response.json({ imported: saved.map((s) => ({ name: s.name, version: s.version })) });
    }
    if (rawName && action === undefined && method === "GET") {
      const v = url.searchParams.get("version");
      const version = v === null ? undefined : Number(v);
      if (version !== undefined && !Number.isInteger(version))
        throw new HttpError(
          400,
          "invalid_request",
          `version "${v}" is not a whole number.`,
          "Use ?version=<n> from the skill's versions.",
        );
      const skill = await store.get(owner, name, version);
      if (!skill) throw notFound(name, version);
      return Response.json({ skill, versions: await store.versions(owner, name) });
    }
    if (rawName && action === undefined && method === "DELETE") {
      if (!(await store.delete(owner, name))) throw notFound(name);
      // The caller's own skill may have been hidden by an operator's of the same name: say
      // which one programs now call.
      const shipped = (await store.list(owner)).some((s) => s.readOnly && s.name === name);
      return Response.json({
        deleted: true,
        name,
        ...(shipped
          ? {
              note: `Your own skill "${name}" is deleted. skills.${name}() still calls the operator's read-only skill of that name, which this server ships for every caller.`,
            }
          : {}),
      });
    }
    if (rawName && action === "rollback" && method === "POST") {
      const body = await jsonBody(request);
      const version = isRecord(body) ? body["version"] : undefined;
      if (typeof version !== "number" || !Number.isInteger(version))
        throw new HttpError(
          400,
          "invalid_request",
          'The roll back body is not { "version": <n> }.',
          'Send the version to make current, e.g. { "version": 1 }.',
        );
      return Response.json({ skill: await store.rollBack(owner, name, version) });
    }
  } catch (error) {
    if (error instanceof CodeModeError && error.code === "skill_invalid")
      throw new HttpError(
        400,
        "skill_invalid",
        error.message,
        "Fix what the message names and send it again.",
      );
    throw error;
  }
  throw new HttpError(
    405,
    "method_not_allowed",
    `${method} ${url.pathname.slice(0, 200)} is not a skills route.`,
    "Use GET /api/skills, GET or DELETE /api/skills/<name>, POST /api/skills/<name>/rollback, GET /api/skills/export or POST /api/skills/import.",
  );
}

/** The skill name in the path; a broken `%` escape is the caller's mistake, not a 500. */
function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(
      400,
      "invalid_request",
      `The skill name in the path is not valid percent-encoding: ${JSON.stringify(raw.slice(0, 100))}.`,
      "Encode the name with encodeURIComponent (skill names are letters, digits and _).",
    );
  }
}

function notFound(name: string, version?: number): HttpError {
  return new HttpError(
    404,
    "not_found",
    `No skill "${name.slice(0, 100)}"${version === undefined ? "" : ` version ${version}`} for this caller.`,
    "List your skills with GET /api/skills (npx code-mode-mcp skills list).",
  );
}

/** A turn of the event loop: what other requests of this isolate waited for runs now. */
function otherRequestsTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function jsonBody(request: Request): Promise<unknown> {
  // In bytes as they arrive (errors/capped-body.ts): `text.length` let 3× the cap through.
  const text = await cappedBodyText(request, MAX_IMPORT_BYTES, "Import fewer skills at once.");
  // Its shape before its parse: up to 4 MiB of a caller's choosing, and a parse builds every
  // value in it (src/mcp/common/json-shape.ts). Skills are a few values each.
  // Past a limit and not JSON either: answered as not JSON (what to fix first), still unparsed.
  const over = exceedsJsonShape(jsonShape(text));
  if (over && isWellFormedJson(text))
    throw new HttpError(
      400,
      "invalid_request",
      jsonShapeRefusal(over),
      "Import fewer skills at once; a skill is a few strings, not nested data.",
    );
  try {
    if (!over) return JSON.parse(text);
  } catch {
    // answered below
  }
  throw new HttpError(
    400,
    "invalid_request",
    "The body is not JSON.",
    "Send a JSON body with content-type application/json.",
  );
}
