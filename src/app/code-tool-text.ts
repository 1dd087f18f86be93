/**
 * What shapes the text of `/mcp/code`'s `code` tool besides the upstream's tools: the name it
 * gives the upstream and the result limit it states. One definition, used by the Worker
 * (endpoints.ts) and by the spec build step, which counts the demo's `code` tool in o200k
 * tokens (its upstream is fixed; any other upstream is listed live, so nothing counts it).
 */
import type { ExecutorLimits } from "../executor/types";
import type { AppConfig } from "./config/config";

/** How the `code` tool names the demo upstream. */
export const DEMO_UPSTREAM_NAME = "the demo projects server";

/** The `codeMcpServer` options that change its tool's text. */
export interface CodeToolText {
  upstreamName?: string;
  limits: Partial<ExecutorLimits>;
}

/**
 * The text options `/mcp/code` is built with for a configuration.
 * @param config - the checked configuration (its upstream and limits)
 */
export function codeToolText(config: Pick<AppConfig, "upstream" | "limits">): CodeToolText {
  return {
    limits: config.limits,
    ...(config.upstream.kind === "demo" ? { upstreamName: DEMO_UPSTREAM_NAME } : {}),
  };
}
