/**
 * Entry `code-mode-mcp`: the whole public library, grouped by layer. It is the union of the
 * subpath entries (`code-mode-mcp/codemode`, `code-mode-mcp/mcp`, `code-mode-mcp/mcp/server`) plus
 * the pure OpenAPI and declaration tools, so one import serves the typical code-mode Worker: it
 * needs a code mode server (`openApiMcpServer`/`codeMcpServer`), the executor, and a handler
 * (`createMcpHandler`, or `McpAgent` for 2025-era sessions) to serve it. The subpaths exist so
 * code written for `agents/mcp`, `agents/mcp/server` and `@cloudflare/codemode` migrates by a
 * change of package name; test/unit/public-surface.test.ts pins every list and checks the union.
 * Named exports only (the subpath lists are re-exported whole); nothing internal.
 */

// The subpath entries, whole: one list of names each, kept in one place (the root re-exports
// them rather than copying them, so a name added to a subpath reaches the root by itself).
// Code mode, the executor and the error type (`code-mode-mcp/codemode`).
export * from "./codemode/index";
// Hosting, both rooms (`code-mode-mcp/mcp`, which includes `code-mode-mcp/mcp/server`).
export * from "./mcp/index";

// OpenAPI and declarations (pure): load and index specs, validate requests, emit TypeScript.
export { loadSpec, OpenApiSpec, isCompactSpec, type OperationMatch } from "./openapi/openapi-spec";
export { compileSpec, type CompileSpecOptions } from "./openapi/compile-spec";
export { checkSpec, findSpecProblems, type SpecProblem } from "./openapi/check-spec";
export { validateRequest, type RequestValidation } from "./openapi/validate-request";
export type { CompactSpec, CompactOperation, SpecVersion } from "./openapi/types";
export {
  toolDeclarations,
  type ToolDeclarations,
  type ToolLike,
} from "./declarations/tool-declarations";
export { SpecDeclarations, type OperationDeclaration } from "./declarations/spec-declarations";
