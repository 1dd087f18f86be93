/**
 * The product's request router: `/health`, the status page (`/`, `/api/status`, `/api/search`),
 * the MCP endpoints (`/mcp`, `/mcp/code`) and the demo API (`/demo-api/…`), with the configured
 * protection in front (`MCP_API_KEY`, or OAuth via oauth.ts).
 *
 * Security defaults: with `MCP_API_KEY` set, every route but `/health` and the status page
 * needs the key; with no caller check at all, a deployed Worker refuses those routes unless
 * `ALLOW_ANONYMOUS=on` (anonymous-guard.ts; local servers keep serving the offline demo); an
 * invalid configuration serves no MCP traffic (`503` naming the settings).
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { urlParts } from "../mcp/common/request-url";
import { refuseAnonymous } from "./anonymous-guard";
import { refuseCrossSite } from "./cross-site";
import { checkApiKey } from "./api-key";
import { HttpError, renderHttpError, wantsHtml } from "./errors/http-error";
import { readConfig, type AppConfig, type AppSettings, type ConfigProblem } from "./config/config";
import { DEMO_API_BASE, demoApiFetch } from "./demo/demo-api-fetch";
import { DEMO_FIX, DEMO_MAX_BODY_BYTES } from "./demo/demo-body-limit";
import { cappedBodyBytes } from "./errors/capped-body";
import { specsWithLaunch } from "./config/launch-specs";
import { configKeyOf } from "./config/config-key";
import { API_ROUTE, CODE_ROUTE, endpointsFor, type Endpoints } from "./endpoints";
import { runSearch } from "./search-endpoint";
import { callerOf } from "./runs/caller";
import { placementCaller, runAsCaller } from "./placement-caller";
import { clusterSecretOf } from "../executor/runners/cluster-secret";
import { RUNS_ROUTE, runsApi, type RunsReader } from "./runs/runs-api";
import { SKILLS_ROUTE, skillsApi } from "./skills/skills-api";
import { skillOwner } from "./skills/skill-owner";
import { FAVICON_SVG, statusPage } from "./status-page";
import { statusReport } from "./status-report";
import { toolsListCountsWithLaunch, type ToolsListCounts } from "./tools-list-count";
import { specDefinesAuth } from "./config/spec-auth";
import { specDocument } from "./config/spec-documents";

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Compiled specs by name (`COMPACT_SPECS`; a launcher adds `SPEC_FILE`'s, see launch-specs.ts). */
  specs: Readonly<Record<string, string>>;
  /**
   * o200k counts of tool lists made in Node (`TOOLS_LIST_TOKENS`; a launcher adds its own, see
   * tools-list-count.ts): the status page shows one where its digest matches what is listed.
   */
  toolsListTokens?: ToolsListCounts;
}

type Checked = { ok: true; config: AppConfig } | { ok: false; problems: ConfigProblem[] };

/** The app's routing, used directly or behind the OAuth provider. */
export interface App {
  /** Checks (and memoizes) the configuration in `env`. */
  config(env: Cloudflare.Env): Checked;
  /** The MCP endpoints for the configuration in `env` (built once), or undefined when invalid. */
  endpoints(env: Cloudflare.Env): Endpoints | undefined;
  /** Serves a request; `authInfo` is the verified identity from OAuth, if any. */
  route(request: Request, env: Cloudflare.Env, authInfo?: AuthInfo): Promise<Response>;
}

/**
 * Creates the router over a set of compiled specs.
 * @param options - the compiled specs
 */
export function createApp(options: AppOptions): App {
  let memo: { key: string; specs: object; checked: Checked } | undefined;
  const config = (env: Cloudflare.Env): Checked => {
    const settings = env as unknown as AppSettings;
    const specs = specsWithLaunch(options.specs, env);
    const key = configKeyOf(env);
    if (memo?.key !== key || memo.specs !== specs) {
      // Parsed once per isolate, with the launch var's and the endpoints' (spec-documents.ts).
      const doc = (name: string) =>
        specDocument(specs[name] ?? "{}") as { servers?: { url?: unknown }[] };
      memo = {
        key,
        specs,
        checked: readConfig(
          settings,
          Object.keys(specs),
          (name) => doc(name).servers ?? [],
          (name) => specDefinesAuth(doc(name)),
        ),
      };
    }
    return memo.checked;
  };

  const endpointsOf = (env: Cloudflare.Env): Endpoints | undefined => {
    const checked = config(env);
    return checked.ok
      ? endpointsFor(checked.config, env, specsWithLaunch(options.specs, env))
      : undefined;
  };

  const countsOf = (env: Cloudflare.Env): ToolsListCounts =>
    toolsListCountsWithLaunch(options.toolsListTokens ?? {}, env);

  // The one `onError` of the product's routes: whatever a route throws is rendered here.
  const route = async (
    request: Request,
    env: Cloudflare.Env,
    authInfo?: AuthInfo,
  ): Promise<Response> => {
    try {
      return await serveRoute(request, env, authInfo);
    } catch (error) {
      return renderHttpError(error, wantsHtml(request));
    }
  };

  const serveRoute = async (
    request: Request,
    env: Cloudflare.Env,
    authInfo?: AuthInfo,
  ): Promise<Response> => {
    const url = urlParts(request.url);
    const checked = config(env);
    const endpoints = checked.ok
      ? endpointsFor(checked.config, env, specsWithLaunch(options.specs, env))
      : undefined;
    if (url.pathname === "/health") {
      if (!checked.ok) throw misconfigured(checked.problems);
      return Response.json({ ok: true, name: "code-mode-mcp", spec: checked.config.specName });
    }
    if (url.pathname === "/favicon.ico" && request.method === "GET")
      return new Response(FAVICON_SVG, {
        headers: { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" },
      });
    if (url.pathname === "/" && request.method === "GET") {
      const report = await statusReport(checked, endpoints, countsOf(env));
      const c = checked.ok ? checked.config : undefined;
      const page = statusPage(
        report,
        !!c?.apiKey,
        { enabled: !!c?.runs.enabled, needsToken: !!(c?.apiKey || c?.oauth) },
        !!c?.skills.enabled,
      );
      return new Response(page, {
        status: checked.ok ? 200 : 503,
        // Never framed: its buttons (a run's cancel, a skill's delete or import) send this
        // server's own Origin from inside a frame, which the cross-site check lets through.
        headers: {
          "content-type": "text/html; charset=utf-8",
          "x-frame-options": "DENY",
          "content-security-policy": "frame-ancestors 'none'",
        },
      });
    }
    if (url.pathname === "/api/status" && request.method === "GET")
      return Response.json(await statusReport(checked, endpoints, countsOf(env)));

    const isRuns = url.pathname === RUNS_ROUTE || url.pathname.startsWith(`${RUNS_ROUTE}/`);
    const isSkills = url.pathname === SKILLS_ROUTE || url.pathname.startsWith(`${SKILLS_ROUTE}/`);
    const isApp =
      isRuns ||
      isSkills ||
      url.pathname === API_ROUTE ||
      url.pathname === CODE_ROUTE ||
      url.pathname === "/api/search" ||
      url.pathname === DEMO_API_BASE ||
      url.pathname.startsWith(`${DEMO_API_BASE}/`);
    if (!isApp)
      throw new HttpError(
        404,
        "not_found",
        `Nothing is served at ${url.pathname.slice(0, 200)}.`,
        "Use /mcp (search, execute), /mcp/code (code), / (the status page) or /health.",
      );
    // A page of another site may send simple requests here; the MCP routes check Origin
    // themselves (cross-site.ts).
    if (url.pathname !== API_ROUTE && url.pathname !== CODE_ROUTE) refuseCrossSite(request);
    if (!checked.ok || !endpoints) throw misconfigured(checked.ok ? [] : checked.problems);
    const { config: c } = checked;
    // Preflights carry no credentials; the MCP handler answers them with its CORS policy.
    if (c.apiKey && request.method !== "OPTIONS") await checkApiKey(request, c.apiKey);
    refuseAnonymous(request, c);
    // Every run the request starts is placed for its caller (placement-caller.ts).
    const caller = placementCaller(request, c, authInfo, clusterSecretOf(env) !== undefined);
    if (url.pathname === "/api/search")
      return runAsCaller(caller, () => runSearch(request, endpoints));
    if (isRuns) return runsApi(request, endpoints.runs, runsReader(c, authInfo));
    if (isSkills)
      return skillsApi(request, endpoints.skills, skillOwner(c, callerAuth(request, c, authInfo)));
    if (url.pathname.startsWith(DEMO_API_BASE)) {
      const path = url.pathname.slice(DEMO_API_BASE.length) || "/";
      return demoApiFetch(env.DEMO_STORE, `${path}${url.search}`, {
        method: request.method,
        headers: request.headers,
        // Read up to the demo API's own cap, not whole: a body is held here before it is sent.
        ...(request.body
          ? { body: await cappedBodyBytes(request, DEMO_MAX_BODY_BYTES, DEMO_FIX) }
          : {}),
      });
    }
    return runAsCaller(caller, () =>
      mcp(request, endpoints, url.pathname, callerAuth(request, c, authInfo)),
    );
  };
  return { config, endpoints: endpointsOf, route };
}

/** Whose runs a `/api/runs` request may read (runs/runs-api.ts says why). */
function runsReader(config: AppConfig, authInfo: AuthInfo | undefined): RunsReader {
  if (config.oauth) return { scope: "own", caller: callerOf(config, authInfo) };
  if (config.api.kind === "http" && config.api.forwardCallerToken) return { scope: "none" };
  return { scope: "all" };
}

function mcp(
  request: Request,
  endpoints: Endpoints,
  pathname: string,
  authInfo: AuthInfo | undefined,
): Promise<Response> {
  const handler = pathname === API_ROUTE ? endpoints.api : endpoints.code;
  if (!handler) throw codeEndpointOff();
  return handler.fetch(request, authInfo ? { authInfo } : {});
}

/**
 * `/mcp/code` with no upstream configured (a spec of your own, no `UPSTREAM_MCP_URL`): what it
 * is for and how to turn it on.
 */
function codeEndpointOff(): HttpError {
  return new HttpError(
    404,
    "code_endpoint_off",
    "/mcp/code is off: it wraps an MCP server's tools in one code tool, and no upstream MCP server is configured (the demo's server is served only with the demo spec).",
    "Set UPSTREAM_MCP_URL=https://mcp.example.com/mcp (npx code-mode-mcp serve --upstream <url>), or use /mcp for your spec.",
  );
}

/**
 * An invalid configuration: every route but the status page answers this `503`, naming each
 * setting with its problem and its fix (the same list `/api/status` gives as data).
 * @param problems - from the configuration check
 */
function misconfigured(problems: readonly ConfigProblem[]): HttpError {
  const list = (pick: (p: ConfigProblem) => string) =>
    problems.map((p) => `${p.setting}: ${pick(p)}`).join(" ");
  return new HttpError(
    503,
    "misconfigured",
    `The configuration is invalid, so nothing is served. ${list((p) => p.message)}`.trim(),
    `${list((p) => p.fix)} (The status page, /, lists the same; /api/status as JSON.)`.trim(),
  );
}

/**
 * The identity handed to the MCP handlers: OAuth's verified one, or (with
 * `FORWARD_CALLER_TOKEN`) the caller's bearer token, which the request callback forwards.
 */
function callerAuth(
  request: Request,
  config: AppConfig,
  authInfo: AuthInfo | undefined,
): AuthInfo | undefined {
  if (authInfo) return authInfo;
  if (config.api.kind !== "http" || !config.api.forwardCallerToken) return undefined;
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  const token = bearer?.[1]?.trim();
  return token ? { token, clientId: "", scopes: [] } : undefined;
}
