// Every entry of the package, resolved through its `exports` map as a user's compiler does, so
// tsconfig.package-types.json checks all of their .d.ts.
export * as root from "code-mode-mcp";
export * as codemode from "code-mode-mcp/codemode";
export * as mcp from "code-mode-mcp/mcp";
export * as server from "code-mode-mcp/mcp/server";
