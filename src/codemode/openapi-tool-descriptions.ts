/**
 * Descriptions of the `search` and `execute` tools. Short and fixed-size whatever the spec's
 * size (the whole `tools/list` stays under 700 tokens): they name the API, state the output
 * limit, and show one example each, built from a real operation of the spec so the example is
 * never wrong for the API at hand. Golden-tested.
 */
import { sandboxErrorsLine } from "../errors";
import type { OpenApiSpec } from "../openapi/openapi-spec";

/** Inputs shared by both descriptions. */
export interface OpenApiDescriptionInput {
  spec: OpenApiSpec;
  /** Result limit in bytes, stated so the model returns little. */
  maxResultBytes: number;
  /** Extra operator guidance appended to both descriptions. */
  extra?: string;
}

/**
 * The API's display name: `info.title`, without a trailing "API".
 * @param spec - the loaded spec
 */
export function apiTitle(spec: OpenApiSpec): string {
  const title =
    typeof spec.compact.info["title"] === "string" ? spec.compact.info["title"].trim() : "";
  return (title || "the HTTP").replace(/\s+API$/i, "");
}

/**
 * The `search` tool's description.
 * @param input - spec and limits
 */
export function searchDescription(input: OpenApiDescriptionInput): string {
  const { spec } = input;
  const word = pickWord(spec);
  return [
    `Search the ${apiTitle(spec)} API's OpenAPI spec (${spec.operations.length} operations) with JavaScript.`,
    "`await codemode.spec()` returns the document: paths[path][method] is an operation (operationId, summary, tags, parameters, requestBody, responses); $refs are resolved (shared and read-only: copy to change), cycles read as { $circular }. `await codemode.declaration(operationId)` returns TypeScript types for its parameters, body and response.",
    `Return only what you need (max ${kb(input.maxResultBytes)} KB).`,
    `Example: async () => { const s = await codemode.spec(); return Object.entries(s.paths).filter(([p]) => p.includes("${word}")).flatMap(([p, ops]) => Object.entries(ops).map(([m, o]) => \`\${m.toUpperCase()} \${p} \${o.operationId}\`)); }`,
    input.extra?.trim() ?? "",
  ]
    .filter(Boolean)
    .join("\n");
}

/**
 * The `execute` tool's description.
 * @param input - spec and limits
 */
export function executeDescription(input: OpenApiDescriptionInput): string {
  const { spec } = input;
  const example = exampleRequest(spec);
  return [
    `Call the ${apiTitle(spec)} API with JavaScript. First use search to find operations and their types.`,
    "codemode.request sends one request (path with real values; auth is added for you):",
    "type Req = { method: string; path: string; query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string> };",
    'request<T = any>(r: Req & { response?: "body" }): Promise<T>; // the 2xx body (parsed JSON, text, bytes or null); any other status throws ApiError { status, headers, body }',
    'request(r: Req & { response: "full" }): Promise<{ status: number; ok: boolean; headers: Record<string, string>; body: any }>; // every status, no throw (Link headers, 404 vs 200)',
    `${sandboxErrorsLine(["ApiError", "RequestRefusedError", "NetworkError", "LimitError"])} codemode.spec() works here too.`,
    `Chain calls and filter; return only the answer (max ${kb(input.maxResultBytes)} KB).`,
    `Example: async () => { try { return await codemode.request({ method: "GET", path: "${example}" }); } catch (e) { if (e.name === "ApiError") return { status: e.status, body: e.body }; throw e; } }`,
    input.extra?.trim() ?? "",
  ]
    .filter(Boolean)
    .join("\n");
}

function kb(bytes: number): number {
  return Math.max(1, Math.round(bytes / 1024));
}

/** A concrete GET path of the spec for the example: the shortest, without parameters if possible. */
function exampleRequest(spec: OpenApiSpec): string {
  const gets = spec.operations.filter((op) => op.method === "get").map((op) => op.path);
  const plain = gets
    .filter((p) => !p.includes("{"))
    .toSorted((a, b) => a.length - b.length || (a < b ? -1 : 1));
  const chosen = plain[0] ?? gets.toSorted((a, b) => a.length - b.length)[0] ?? "/";
  return chosen.replace(/\{([^}]+)\}/g, (_, name: string) => `<${name}>`);
}

/** A path word for the search example: the most common first path segment. */
function pickWord(spec: OpenApiSpec): string {
  const counts = new Map<string, number>();
  for (const op of spec.operations) {
    const first = op.path.split("/").find((part) => part && !part.startsWith("{"));
    if (first) counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  const best = [...counts].toSorted((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return best ? `/${best[0]}` : "/";
}
