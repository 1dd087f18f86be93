/**
 * MCP tools → TypeScript declarations for the `code` tool: one method per upstream tool on a
 * `codemode` object, `name(input: NameInput): Promise<NameOutput>`, with the tool's description
 * as the doc comment and the output typed from `outputSchema` (`unknown` without one). Local
 * `$defs`/`definitions` become named types; `$ref: "#"` is the input type itself.
 */
import { getAtPointer, parsePointer } from "../openapi/json-pointer";
import { compactType } from "./compact-type";
import { docComment } from "./doc-comment";
import { localizeRefs } from "./local-refs";
import { SchemaEmitter, type ResolvedRef } from "./schema-emitter";
import { NameAllocator, toIdentifier, toTypeName } from "./type-name";

/** The parts of an MCP tool definition the emitter reads. */
export interface ToolLike {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
}

/** The declaration of one tool. */
export interface ToolDeclaration {
  /** The upstream tool name. */
  name: string;
  /** The method name in `codemode.<identifier>(…)`. */
  identifier: string;
  /** Names of the types this tool declares (input, output, local definitions). */
  types: string[];
  /** The method signature with its doc comment, indented for a `codemode` object literal type. */
  signature: string;
  /** Complete, valid TypeScript for this tool alone: its types plus `declare const codemode`. */
  text: string;
  /** The method on one line with its input type inline and no doc comment (named types may appear). */
  compact: string;
  /** {@link compact} without the output type, for the tightest space. */
  compactInput: string;
}

/** Two tools whose names map to the same identifier; the later one got a numbered identifier. */
export interface NameCollision {
  tool: string;
  identifier: string;
  conflictsWith: string;
}

/** Declarations for a tool set. */
export interface ToolDeclarations {
  /** Every type, then `declare const codemode: { … }` with one method per tool. */
  text: string;
  tools: ToolDeclaration[];
  collisions: NameCollision[];
  /**
   * Tools not declared because {@link ToolDeclarationsOptions.maxChars} was reached: the first
   * that would have passed it and every one after it, in order (empty when all fit).
   */
  omitted: string[];
}

/** Options of {@link toolDeclarations}. */
export interface ToolDeclarationsOptions {
  /** Name of the object the methods live on (default `codemode`). */
  namespace?: string;
  /**
   * Most characters of `text`: tools are declared in order until the next would pass it, and
   * the rest are left out (`omitted`). No tool after the first that does not fit is rendered,
   * so the work is bounded too, by this plus one tool's declarations. Default: no bound.
   */
  maxChars?: number;
}

/**
 * Emits declarations for a list of tools, in the order given (deterministic for a given list).
 * @param tools - MCP tool definitions
 * @param options - see {@link ToolDeclarationsOptions}
 */
export function toolDeclarations(
  tools: readonly ToolLike[],
  options: ToolDeclarationsOptions = {},
): ToolDeclarations {
  const namespace = options.namespace ?? "codemode";
  const names = new NameAllocator();
  const identifiers = new Map<string, string>();
  const collisions: NameCollision[] = [];
  const out: ToolDeclaration[] = [];
  const omitted: string[] = [];
  const maxChars = options.maxChars ?? Infinity;
  // The text's fixed part, then each tool's types and signature (what the join below makes).
  let chars = `declare const ${namespace}: {\n};\n`.length;
  for (const tool of tools) {
    if (omitted.length > 0) {
      omitted.push(tool.name);
      continue;
    }
    const base = toIdentifier(tool.name);
    let identifier = base;
    if (identifiers.has(base)) {
      let n = 2;
      while (identifiers.has(`${base}_${n}`)) n++;
      identifier = `${base}_${n}`;
    }
    const declared = declareSafely(tool, identifier, names, namespace);
    chars += typesOf(declared, namespace).length + declared.signature.length;
    if (chars > maxChars) {
      omitted.push(tool.name);
      continue;
    }
    if (identifier !== base)
      collisions.push({ tool: tool.name, identifier, conflictsWith: identifiers.get(base)! });
    identifiers.set(identifier, tool.name);
    out.push(declared);
  }
  const types = out.map((t) => typesOf(t, namespace)).join("");
  const text = `${types}declare const ${namespace}: {\n${out.map((t) => t.signature).join("")}};\n`;
  return { text, tools: out, collisions, omitted };
}

/** The types part of one tool's `text` (all before its `declare const`). */
function typesOf(declared: ToolDeclaration, namespace: string): string {
  return declared.text.slice(0, declared.text.indexOf(`declare const ${namespace}`));
}

/**
 * Declares one tool; a schema the emitter cannot walk (nested so deep that the stack runs out,
 * or malformed in a way that throws) declares an input of any keys instead. Tool lists come
 * from upstream servers: one tool must not take down the declarations of every other tool (and
 * with them the `code` tool of every upstream behind it).
 */
function declareSafely(
  tool: ToolLike,
  identifier: string,
  names: NameAllocator,
  namespace: string,
): ToolDeclaration {
  try {
    return declareTool(tool, identifier, names, namespace);
  } catch {
    const note = "(Its schemas could not be declared: too deeply nested or malformed.)";
    return declareTool(
      {
        name: tool.name,
        ...(typeof tool.title === "string" ? { title: tool.title } : {}),
        description: typeof tool.description === "string" ? `${tool.description}\n\n${note}` : note,
        inputSchema: { type: "object" },
      },
      identifier,
      names,
      namespace,
    );
  }
}

function declareTool(
  tool: ToolLike,
  identifier: string,
  names: NameAllocator,
  namespace: string,
): ToolDeclaration {
  // `$id`/`$anchor` references become local pointers, the one kind the emitter resolves.
  tool = {
    ...tool,
    inputSchema: localizeRefs(objectRoot(tool.inputSchema)),
    outputSchema: localizeRefs(tool.outputSchema),
  };
  const base = toTypeName(tool.name);
  const decls: string[] = [];
  const input = names.claim(`${base}Input`);
  const output = tool.outputSchema === undefined ? undefined : names.claim(`${base}Output`);
  const inputEmitter = emitterFor(tool.inputSchema, names, decls, input);
  inputEmitter.declare(input, tool.inputSchema ?? { type: "object" }, "");
  const outputEmitter = output ? emitterFor(tool.outputSchema, names, decls, output) : undefined;
  if (output) outputEmitter!.declare(output, tool.outputSchema, "");
  const optional = !hasRequired(tool.inputSchema);
  const doc = [
    tool.title && tool.title !== tool.description ? tool.title : "",
    tool.description ?? "",
  ]
    .filter(Boolean)
    .join("\n\n");
  const signature = `${docComment(doc, "  ")}  ${identifier}(input${optional ? "?" : ""}: ${input}): Promise<${output ?? "unknown"}>;\n`;
  // Rendered again inline by the same emitters: refs keep the names declared above.
  const inline = compactType(inputEmitter.typeOf(tool.inputSchema ?? { type: "object" }));
  const compactInput = `${identifier}(input${optional ? "?" : ""}: ${inline})`;
  const outputInline = outputEmitter
    ? compactType(outputEmitter.typeOf(tool.outputSchema))
    : "unknown";
  const types = decls.join("\n");
  return {
    name: tool.name,
    identifier,
    types: decls.map((d) => /(?:interface|type) (\w+)/.exec(d)?.[1] ?? "").filter(Boolean),
    signature,
    text: `${types}\ndeclare const ${namespace}: {\n${signature}};\n`,
    compact: `${compactInput}: Promise<${outputInline}>`,
    compactInput,
  };
}

/** An emitter for one schema document: local refs resolve against its root, `#` is the root type. */
function emitterFor(
  root: unknown,
  names: NameAllocator,
  out: string[],
  rootName: string,
): SchemaEmitter {
  const emitter = new SchemaEmitter({
    names,
    out,
    resolve: (ref): ResolvedRef | undefined => {
      const tokens = parsePointer(ref);
      if (!tokens || tokens.length === 0) return undefined;
      const schema = getAtPointer(root, ref);
      if (schema === undefined) return undefined;
      const title = (schema as { title?: unknown }).title;
      const last =
        tokens.length === 2 && (tokens[0] === "$defs" || tokens[0] === "definitions")
          ? tokens[1]!
          : tokens.join("_");
      return {
        schema,
        name: toTypeName(typeof title === "string" && tokens.length > 2 ? title : last),
      };
    },
  });
  emitter.alias("#", rootName);
  return emitter;
}

/**
 * MCP tool arguments are always an object, so an input schema that says nothing about its type
 * (`{}`, or only `$schema`, as some servers send) declares an object with any keys.
 */
function objectRoot(schema: unknown): unknown {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return schema;
  const keywords = ["type", "$ref", "allOf", "anyOf", "oneOf", "enum", "const", "not", "if"];
  return keywords.some((k) => k in schema) ? schema : { ...schema, type: "object" };
}

/** Whether the input must be given: a `required` list on the schema or in one of its allOf branches. */
function hasRequired(schema: unknown): boolean {
  if (!schema || typeof schema !== "object") return false;
  const { required, allOf } = schema as { required?: unknown; allOf?: unknown };
  if (Array.isArray(required) && required.length > 0) return true;
  return Array.isArray(allOf) && allOf.some(hasRequired);
}
