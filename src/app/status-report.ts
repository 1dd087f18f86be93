/**
 * What the status page shows, as data (also served as JSON at `/api/status`): the spec `/mcp`
 * serves, each endpoint's tools with their token footprint, the upstream, limits and protection.
 *
 * Security defaults: no secret and no header value appears here; upstream URLs are reduced to
 * their origin.
 */
import { resolveLimits } from "../executor/limits";
import type { ExecutorLimits } from "../executor/types";
import { TOOL_LIMITS } from "../codemode/tool-limits";
import type { AppConfig, ConfigProblem } from "./config/config";
import { DEMO_TOOL_NAMES } from "./demo/demo-upstream";
import { API_ROUTE, CODE_ROUTE, type Endpoints } from "./endpoints";
import { withSelfClient } from "./self-client";

/** One tool of an endpoint, with a cheap token estimate. */
export interface ToolFootprint {
  name: string;
  descriptionChars: number;
  /** Estimated tokens of the tool's `tools/list` entry: JSON characters ÷ 4. */
  tokens: number;
}

/** One MCP endpoint. */
export interface EndpointReport {
  route: string;
  kind: "search + execute" | "code";
  tools: ToolFootprint[];
  /** Estimated tokens of the whole `tools/list` result (JSON characters ÷ 4). */
  totalTokens: number;
  error?: string;
}

/** The status page's data. */
export interface StatusReport {
  ok: boolean;
  problems: ConfigProblem[];
  warnings: string[];
  spec?: {
    name: string;
    title: string;
    version: string;
    openapi: string;
    operations: number;
    paths: number;
    tags: number;
    bytes: number;
  };
  api?: {
    kind: "demo" | "http";
    origin?: string;
    credential: boolean;
    forwardCallerToken: boolean;
  };
  upstream?: { kind: "demo" | "url" | "off"; origin?: string; auth: boolean; tools?: string[] };
  endpoints: EndpointReport[];
  limits?: ExecutorLimits;
  protection?: { apiKey: boolean; oauth: boolean; approvals: boolean };
  tokenEstimate: string;
}

/** How token counts are estimated in the Worker (no tokenizer is shipped). */
export const TOKEN_ESTIMATE = "≈ tokens, estimated as JSON characters ÷ 4";

/**
 * Builds the report, listing tools through each endpoint's own handler.
 * @param config - the checked configuration, or the problems found
 * @param endpoints - the built endpoints (absent when the configuration is invalid)
 */
export async function statusReport(
  config: { ok: true; config: AppConfig } | { ok: false; problems: ConfigProblem[] },
  endpoints: Endpoints | undefined,
): Promise<StatusReport> {
  if (!config.ok || !endpoints)
    return {
      ok: false,
      problems: config.ok ? [] : config.problems,
      warnings: [],
      endpoints: [],
      tokenEstimate: TOKEN_ESTIMATE,
    };
  const c = config.config;
  const { spec } = endpoints;
  const info = spec.compact.info as { title?: unknown; version?: unknown };
  const [api, code] = await Promise.all([
    endpointReport(endpoints, API_ROUTE),
    endpoints.code ? endpointReport(endpoints, CODE_ROUTE) : undefined,
  ]);
  return {
    ok: true,
    problems: [],
    warnings: c.warnings,
    spec: {
      name: c.specName,
      title: String(info.title ?? c.specName),
      version: String(info.version ?? ""),
      openapi: spec.compact.sourceVersion,
      operations: spec.operations.length,
      paths: new Set(spec.operations.map((o) => o.path)).size,
      tags: new Set(spec.operations.flatMap((o) => o.tags ?? [])).size,
      bytes: endpoints.specBytes,
    },
    api:
      c.api.kind === "demo"
        ? { kind: "demo", credential: false, forwardCallerToken: false }
        : {
            kind: "http",
            origin: new URL(c.api.baseUrl).origin,
            credential: c.api.credential !== undefined,
            forwardCallerToken: c.api.forwardCallerToken,
          },
    upstream: {
      kind: c.upstream.kind,
      ...(c.upstream.kind === "url"
        ? {
            origin: c.upstream.servers
              .map((s) => `${s.name ? `${s.name}: ` : ""}${new URL(s.url).origin}`)
              .join(", "),
          }
        : {}),
      auth:
        c.upstream.kind === "url" &&
        c.upstream.servers.some((s) => Object.keys(s.headers).length > 0),
      ...(c.upstream.kind === "demo" ? { tools: [...DEMO_TOOL_NAMES] } : {}),
    },
    endpoints: code ? [api, code] : [api],
    limits: resolveLimits(TOOL_LIMITS, c.limits),
    protection: { apiKey: c.apiKey !== undefined, oauth: c.oauth, approvals: c.approvals },
    tokenEstimate: TOKEN_ESTIMATE,
  };
}

async function endpointReport(endpoints: Endpoints, route: string): Promise<EndpointReport> {
  const kind = route === API_ROUTE ? "search + execute" : "code";
  const handler = route === API_ROUTE ? endpoints.api : endpoints.code!;
  try {
    const { tools } = await withSelfClient(handler, route, (client) => client.listTools());
    return {
      route,
      kind,
      tools: tools.map((t) => ({
        name: t.name,
        descriptionChars: (t.description ?? "").length,
        tokens: Math.ceil(JSON.stringify(t).length / 4),
      })),
      totalTokens: Math.ceil(JSON.stringify({ tools }).length / 4),
    };
  } catch (error) {
    return { route, kind, tools: [], totalTokens: 0, error: (error as Error).message };
  }
}
