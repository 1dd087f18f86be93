/**
 * The lighter structural check for specs passed as objects at run time. The build step validates
 * specs fully with swagger-parser, which cannot run inside workerd (its validator compiles schemas
 * with `new Function`); this check covers what the layer relies on, without code generation, and
 * names the JSON pointer of every problem.
 */
import { CodeModeError } from "../errors";
import { childPointer, getAtPointer } from "./json-pointer";
import { collectRefs } from "./ref-cycles";
import { HTTP_METHODS, type SpecVersion } from "./types";
import { isRecord } from "../is-record";

/** One problem found in a spec. */
export interface SpecProblem {
  /** Fragment pointer of the offending value, e.g. `#/paths/~1pets/get/responses`. */
  pointer: string;
  /** What is wrong there. */
  message: string;
}

const LOCATIONS = new Set(["path", "query", "header", "cookie"]);
const SWAGGER2_LOCATIONS = new Set(["path", "query", "header", "body", "formData"]);
const MAX_PROBLEMS = 20;

/**
 * Tells the spec family of a document, or `undefined` when it is not a supported OpenAPI document.
 * @param doc - a parsed spec
 */
export function specVersionOf(doc: unknown): SpecVersion | undefined {
  if (!isRecord(doc)) return undefined;
  if (doc.swagger === "2.0") return "2.0";
  if (typeof doc.openapi !== "string") return undefined;
  if (/^3\.0\.\d+/.test(doc.openapi)) return "3.0";
  if (/^3\.1\.\d+/.test(doc.openapi)) return "3.1";
  return undefined;
}

/**
 * Lists structural problems of a spec (at most 20): version, `info`, `paths`, operations,
 * parameters, duplicate `operationId`s, path parameters declared for every `{name}` in a path, and
 * `$ref`s that are external or point nowhere. Never throws.
 * @param doc - a parsed OpenAPI 2.0, 3.0 or 3.1 document
 */
export function findSpecProblems(doc: unknown): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const add = (pointer: string, message: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ pointer, message });
  };
  if (!isRecord(doc)) return [{ pointer: "#", message: "a spec must be a JSON object" }];
  const version = specVersionOf(doc);
  if (!version) {
    add(
      doc.openapi !== undefined ? "#/openapi" : "#",
      `unsupported spec version: expected "openapi": "3.0.x" or "3.1.x", or "swagger": "2.0"`,
    );
    return problems;
  }
  if (!isRecord(doc.info)) add("#/info", `required object "info" is missing`);
  else {
    if (typeof doc.info.title !== "string") add("#/info/title", `"title" must be a string`);
    if (typeof doc.info.version !== "string") add("#/info/version", `"version" must be a string`);
  }
  if (doc.paths === undefined) {
    if (version !== "3.1") add("#/paths", `required object "paths" is missing`);
  } else if (!isRecord(doc.paths)) add("#/paths", `"paths" must be an object`);
  else checkPaths(doc, version, add);
  checkRefs(doc, add);
  return problems;
}

/**
 * Throws a `CodeModeError` with code `spec_invalid` listing every problem found by
 * {@link findSpecProblems}, each with its JSON pointer.
 * @param doc - a parsed spec
 * @param label - how to name the spec in the message (a file name, "the spec")
 */
export function checkSpec(doc: unknown, label = "the spec"): void {
  const problems = findSpecProblems(doc);
  if (problems.length === 0) return;
  const lines = problems.map((p) => `  ${p.pointer}: ${p.message}`);
  throw new CodeModeError(
    "spec_invalid",
    `Invalid OpenAPI document (${label}), ${problems.length} problem(s):\n${lines.join("\n")}`,
  );
}

type Add = (pointer: string, message: string) => void;

function checkPaths(doc: Record<string, unknown>, version: SpecVersion, add: Add): void {
  const seenIds = new Map<string, string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, unknown>)) {
    const itemPointer = childPointer("#/paths", path);
    if (path.startsWith("x-")) continue;
    if (!path.startsWith("/")) add(itemPointer, `path "${path}" must start with "/"`);
    let pathItem = item;
    if (isRecord(item) && typeof item.$ref === "string") pathItem = getAtPointer(doc, item.$ref);
    if (!isRecord(pathItem)) {
      add(itemPointer, "a path item must be an object");
      continue;
    }
    const shared = checkParameters(
      doc,
      pathItem.parameters,
      childPointer(itemPointer, "parameters"),
      version,
      add,
    );
    for (const method of HTTP_METHODS) {
      const op = pathItem[method];
      if (op === undefined) continue;
      const opPointer = childPointer(itemPointer, method);
      if (!isRecord(op)) {
        add(opPointer, "an operation must be an object");
        continue;
      }
      if (op.operationId !== undefined) {
        if (typeof op.operationId !== "string")
          add(childPointer(opPointer, "operationId"), `"operationId" must be a string`);
        else if (seenIds.has(op.operationId)) {
          add(
            childPointer(opPointer, "operationId"),
            `duplicate operationId "${op.operationId}" (also at ${seenIds.get(op.operationId)})`,
          );
        } else seenIds.set(op.operationId, opPointer);
      }
      if (op.responses === undefined) {
        if (version !== "3.1") add(opPointer, `required object "responses" is missing`);
      } else if (!isRecord(op.responses))
        add(childPointer(opPointer, "responses"), `"responses" must be an object`);
      if (op.requestBody !== undefined) {
        const body = op.requestBody;
        const bodyPointer = childPointer(opPointer, "requestBody");
        if (!isRecord(body)) add(bodyPointer, `"requestBody" must be an object`);
        else if (typeof body.$ref !== "string" && !isRecord(body.content))
          add(bodyPointer, `required object "content" is missing`);
      }
      const own = checkParameters(
        doc,
        op.parameters,
        childPointer(opPointer, "parameters"),
        version,
        add,
      );
      const declared = new Set([...shared, ...own]);
      for (const match of path.matchAll(/\{([^{}]+)\}/g)) {
        if (!declared.has(match[1]!))
          add(
            opPointer,
            `path parameter "${match[1]}" of "${path}" is not declared in "parameters"`,
          );
      }
    }
  }
}

/** Checks a parameters array and returns the names of its path parameters. */
function checkParameters(
  doc: Record<string, unknown>,
  list: unknown,
  pointer: string,
  version: SpecVersion,
  add: Add,
): string[] {
  const pathNames: string[] = [];
  if (list === undefined) return pathNames;
  if (!Array.isArray(list)) {
    add(pointer, `"parameters" must be an array`);
    return pathNames;
  }
  const locations = version === "2.0" ? SWAGGER2_LOCATIONS : LOCATIONS;
  list.forEach((entry, i) => {
    const p = childPointer(pointer, i);
    const param =
      isRecord(entry) && typeof entry.$ref === "string" ? getAtPointer(doc, entry.$ref) : entry;
    if (!isRecord(param)) {
      if (!isRecord(entry) || typeof entry.$ref !== "string")
        add(p, "a parameter must be an object");
      return;
    }
    if (typeof param.name !== "string") add(p, `parameter "name" must be a string`);
    if (typeof param.in !== "string" || !locations.has(param.in)) {
      add(p, `parameter "in" must be one of ${[...locations].join(", ")}`);
    }
    if (param.in === "path") {
      if (param.required !== true)
        add(p, `path parameter "${String(param.name)}" must have "required": true`);
      if (typeof param.name === "string") pathNames.push(param.name);
    }
  });
  return pathNames;
}

function checkRefs(doc: Record<string, unknown>, add: Add): void {
  const bad = new Map<string, string>();
  for (const ref of collectRefs(doc, new Set())) {
    if (!ref.startsWith("#")) {
      bad.set(
        ref,
        `external $ref "${ref}" cannot be resolved at run time; bundle the spec into one document first ("npx code-mode-mcp init <folder> --spec FILE" writes it bundled, as JSON)`,
      );
    } else if (getAtPointer(doc, ref) === undefined)
      bad.set(ref, `$ref "${ref}" points to nothing`);
  }
  if (bad.size === 0) return;
  // Second walk only when something is wrong: tracking pointers for every node of a 4 MB spec
  // costs more than the check itself.
  const stack: [unknown, string][] = [[doc, "#"]];
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && bad.has(ref)) add(pointer, bad.get(ref)!);
    for (const [key, child] of Object.entries(node)) {
      if (child !== null && typeof child === "object")
        stack.push([child, childPointer(pointer, key)]);
    }
  }
}
