/**
 * The public library surface. Named exports only, grouped by layer.
 */

// Stateless MCP hosting (src/mcp): serve MCP from a Worker, with guards, CORS, auth and MRTR elicitation.
export { createMcpHandler } from "./mcp/create-mcp-handler";
export type {
  CreateMcpHandlerOptions,
  McpServerFactory,
  McpServerFactoryContext,
  StatelessMcpHandler,
} from "./mcp/handler-types";
export { DEFAULT_CORS_OPTIONS, type CorsOptions } from "./mcp/cors";
export { guardRequest, type GuardOptions } from "./mcp/guards";
export { getMcpAuthContext, authInfoFromOAuthProps, type McpAuthContext } from "./mcp/auth-context";
export { createRequestStateSealer, type RequestStateOptions } from "./mcp/request-state";
export {
  inputRequired,
  acceptedContent,
  inputResponse,
  createRequestStateCodec,
  type InputRequiredSpec,
  type InputResponseView,
  type RequestStateCodec,
} from "./mcp/elicitation";
