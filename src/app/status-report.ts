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
import { STATUS_VIEWER, withSelfClient } from "./self-client";
import {
  toolEntryText,
  toolsListDigest,
  toolsListText,
  type ToolsListCounts,
} from "./tools-list-count";

/** One tool of an endpoint, with its token footprint. */
export interface ToolFootprint {
  name: string;
  descriptionChars: number;
  /** Tokens of the tool's `tools/list` entry (name, description, input schema), as `count` says. */
  tokens: number;
}

/** How an endpoint's token figures were made. */
export interface TokenCount {
  /**
   * `o200k`: counted in Node (build step or launcher) for exactly the text this endpoint lists,
   * the figure `code-mode-mcp check` gives; `estimate`: JSON characters ÷ 4.
   */
  kind: "o200k" | "estimate";
  /** Where the count comes from, or why it is only an estimate. */
  note: string;
}

/** One MCP endpoint. */
export interface EndpointReport {
  route: string;
  kind: "search + execute" | "code";
  tools: ToolFootprint[];
  /** Tokens of the whole `tools/list` (every tool's name, description and input schema). */
  totalTokens: number;
  /** How `totalTokens` and each tool's `tokens` were made. */
  count: TokenCount;
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
}

/** Where an o200k figure comes from. */
export const O200K_NOTE =
  "o200k tokens of exactly what this endpoint lists, counted in Node by the build step or the launcher with the measure that npx code-mode-mcp check uses";

/** Why `/mcp` shows an estimate: its text is not one counted in Node. */
export const API_ESTIMATE_NOTE =
  "≈ tokens (JSON characters ÷ 4), an estimate: settings change this endpoint's tool text from what was counted in Node (a LIMIT_ setting, a secret redacted from the spec), and the Worker ships no tokenizer (npx code-mode-mcp check SPEC counts the spec's default text)";

/** Why `/mcp/code` shows an estimate: its text comes from the upstream's tools. */
export const CODE_ESTIMATE_NOTE =
  "≈ tokens (JSON characters ÷ 4), an estimate: the code tool's description is generated from the upstream's live tool list, and only the demo upstream's fixed tools (with default limits) are counted in Node, as the Worker ships no tokenizer";

/**
 * Builds the report, listing tools through each endpoint's own handler.
 * @param config - the checked configuration, or the problems found
 * @param endpoints - the built endpoints (absent when the configuration is invalid)
 * @param counts - o200k counts made in Node, by digest of the counted text (tools-list-count.ts)
 */
export async function statusReport(
  config: { ok: true; config: AppConfig } | { ok: false; problems: ConfigProblem[] },
  endpoints: Endpoints | undefined,
  counts: ToolsListCounts = {},
): Promise<StatusReport> {
  if (!config.ok || !endpoints)
    return {
      ok: false,
      problems: config.ok ? [] : config.problems,
      warnings: [],
      endpoints: [],
    };
  const c = config.config;
  const { spec } = endpoints;
  const info = spec.compact.info as { title?: unknown; version?: unknown };
  const [api, code] = await Promise.all([
    endpointReport(endpoints, API_ROUTE, counts),
    endpoints.code ? endpointReport(endpoints, CODE_ROUTE, counts) : undefined,
  ]);
  return {
    ok: true,
    problems: [],
    // Operator skills left out (a hand-set LAUNCH_SKILLS the launcher did not check).
    warnings: [...c.warnings, ...(endpoints.skillProblems ?? [])],
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
  };
}

async function endpointReport(
  endpoints: Endpoints,
  route: string,
  counts: ToolsListCounts,
): Promise<EndpointReport> {
  const kind = route === API_ROUTE ? "search + execute" : "code";
  const handler = route === API_ROUTE ? endpoints.api : endpoints.code!;
  try {
    const { tools } = await withSelfClient(
      handler,
      route,
      (client) => client.listTools(),
      STATUS_VIEWER,
    );
    const text = toolsListText(tools);
    // Exact only when Node counted this very text; anything else is labelled an estimate.
    const counted = counts[await toolsListDigest(text)];
    const estimate = route === API_ROUTE ? API_ESTIMATE_NOTE : CODE_ESTIMATE_NOTE;
    return {
      route,
      kind,
      tools: tools.map((t) => ({
        name: t.name,
        descriptionChars: (t.description ?? "").length,
        tokens: counted?.tools[t.name] ?? Math.ceil(toolEntryText(t).length / 4),
      })),
      totalTokens: counted?.tokens ?? Math.ceil(text.length / 4),
      count: counted ? { kind: "o200k", note: O200K_NOTE } : { kind: "estimate", note: estimate },
    };
  } catch (error) {
    return {
      route,
      kind,
      tools: [],
      totalTokens: 0,
      count: { kind: "estimate", note: "the tools could not be listed" },
      error: (error as Error).message,
    };
  }
}
