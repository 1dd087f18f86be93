/**
 * What shapes the text of `/mcp`'s tools besides the spec: the note added for the demo API and the
 * result limit the descriptions state. One definition, used by the Worker (endpoints.ts) and by
 * the Node steps that count those tools in o200k tokens (the spec build step and the launcher),
 * so a count made in Node is of the very text the Worker lists.
 */
import type { ExecutorLimits } from "../executor/types";
import type { AppConfig } from "./config/config";

/** Added to both tool descriptions when `/mcp` serves the in-process demo API. */
export const DEMO_API_NOTE =
  "This is the demo API served by this Worker (projects, tasks, comments).";

/** The `openApiMcpServer` options that change its tools' text. */
export interface ApiToolText {
  description?: string;
  limits: Partial<ExecutorLimits>;
}

/**
 * The text options `/mcp` is built with for a configuration.
 * @param config - the checked configuration (its API target and limits)
 */
export function apiToolText(config: Pick<AppConfig, "api" | "limits">): ApiToolText {
  return {
    limits: config.limits,
    ...(config.api.kind === "demo" ? { description: DEMO_API_NOTE } : {}),
  };
}
