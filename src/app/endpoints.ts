/**
 * The two MCP endpoints built from a checked configuration: `/mcp` (`openApiMcpServer` over the
 * configured spec) and `/mcp/code` (`codeMcpServer` over the configured upstream), each behind
 * our `createMcpHandler`. Built once per isolate and configuration, because the spec is parsed
 * and indexed once and the code server caches the upstream's tool list.
 */
import { codeMcpServer } from "../codemode/code-mcp-server";
import type { CodeUpstream } from "../codemode/upstream/upstream-connection";
import { openApiMcpServer } from "../codemode/openapi-mcp-server";
import { createExecutor } from "./create-executor";
import { createMcpHandler } from "../mcp/stateless/create-mcp-handler";
import type { StatelessMcpHandler } from "../mcp/stateless/handler-types";
import { loadSpec, type OpenApiSpec } from "../openapi/openapi-spec";
import { specDocument } from "./config/spec-documents";
import { credentialSecrets } from "../codemode/redaction/redaction";
import { apiRequestHandler, targetSecrets } from "./api-request-handler";
import { apiToolText } from "./api-tool-text";
import { codeToolText } from "./code-tool-text";
import { durableApprovalLedger } from "./approval-ledger-store";
import type { AppConfig } from "./config/config";
import { demoUpstreamServer } from "./demo/demo-upstream";
import { namingFetch } from "../codemode/request/network-error";
import { sameOriginRedirects } from "../codemode/upstream/same-origin-redirects";
import type { RunRecorder } from "../codemode/runs/run-record";
import { callerOf } from "./runs/caller";
import { runHistory, type RunHistory } from "./runs/run-history";
import { afterResponse, deliverThenRun } from "./runs/after-response";
import { sandboxLoader } from "./sandbox-loader";
import { currentCaller } from "./placement-caller";
import type { SkillsOptions } from "../codemode/skills/skills-options";
import { withReadOnlySkills } from "../codemode/skills/read-only-skills";
import { durableSkillStore } from "./skills/durable-skill-store";
import { operatorSkills, shippedSkillsText } from "./skills/operator-skills";
import { skillOwner } from "./skills/skill-owner";

/** The MCP routes. */
export const API_ROUTE = "/mcp";
export const CODE_ROUTE = "/mcp/code";

/** Everything the routes and the status page need for one configuration. */
export interface Endpoints {
  spec: OpenApiSpec;
  /** Size of the compact spec the Worker ships, in bytes of JSON text. */
  specBytes: number;
  api: StatelessMcpHandler;
  /** `/mcp/code`, undefined when no upstream is configured (config.ts `UpstreamTarget` off). */
  code?: StatelessMcpHandler;
  /** The run history (`RUNS`, on by default), undefined when off. */
  runs?: RunHistory;
  /** Saved skills (`SKILLS`, on by default), undefined when off: the store and whose skills. */
  skills?: SkillsOptions;
  /** Operator skills left out (a bad `LAUNCH_SKILLS`), for the status page. */
  skillProblems?: string[];
}

const specs = new Map<string, OpenApiSpec>();
let built: { config: AppConfig; launched: string; key: string; endpoints: Endpoints } | undefined;

/**
 * Returns the endpoints for `config`, building them when the configuration changed.
 * @param config - the checked configuration
 * @param env - bindings (LOADER, DEMO_STORE, APPROVAL_LEDGER)
 * @param specTexts - compiled specs by name (JSON text)
 */
export function endpointsFor(
  config: AppConfig,
  env: Cloudflare.Env,
  specTexts: Readonly<Record<string, string>>,
): Endpoints {
  // The operator's skills come with the env, not the configuration: part of the key too.
  const launched = shippedSkillsText(env);
  // Per request: the checked configuration is memoized by the app (app.ts), so the same object
  // (with the same operator skills) means the same endpoints without serialising it again.
  if (built?.config === config && built.launched === launched) return built.endpoints;
  const key = `${JSON.stringify(config)}\n${launched}`;
  if (built?.key === key) {
    built.config = config;
    built.launched = launched;
    return built.endpoints;
  }
  const text = specTexts[config.specName]!;
  let spec = specs.get(config.specName);
  if (!spec) {
    // The configuration check's parse of the same text (spec-documents.ts); text that does not
    // parse goes to loadSpec as it is, which names the problem.
    let doc: unknown = text;
    try {
      doc = specDocument(text);
    } catch {
      // loadSpec's own error below
    }
    spec = loadSpec(doc);
    specs.set(config.specName, spec);
  }
  const executor = createExecutor(config.executor, sandboxLoader(env), config.limits);
  const approvalKey = config.approvals ? (config.requestStateKey ?? isolateKey()) : undefined;
  const secrets = configuredSecrets(config);
  // Every run of both endpoints is recorded, sharded by caller and day (runs/run-history.ts).
  const runs = config.runs.enabled ? runHistory(env.RUN_HISTORY, config.runs) : undefined;
  const onRun: { onRun?: RunRecorder } = runs
    ? {
        // Written once the response is out (runs/after-response.ts): the run does not wait for
        // it, nor does its answer share the thread with the store's write on the way out.
        onRun: (record, { authInfo }) =>
          afterResponse(() =>
            runs
              .record(record, callerOf(config, authInfo))
              .catch((error: unknown) =>
                console.warn(`run history: a run was not recorded: ${String(error)}`),
              ),
          ),
      }
    : {};
  const skills = productSkills(config, env);
  const api = createMcpHandler(
    openApiMcpServer({
      ...(skills ? { skills: skills.options } : {}),
      spec,
      executor,
      request: apiRequestHandler(config.api, env.DEMO_STORE, spec),
      secrets,
      approval: config.approvals,
      withholdResponseBodies: config.withheldOperations,
      maxResponseBytes: config.responses.maxBytes,
      maxResponseBytesPerRun: config.responses.maxBytesPerRun,
      // Single use across isolates: a replayed approval round finds its id claimed here.
      ...(config.approvals ? { approvalLedger: durableApprovalLedger(env.APPROVAL_LEDGER) } : {}),
      // The description note and limits: the text Node counts in o200k (api-tool-text.ts).
      ...apiToolText(config),
      ...onRun,
      name: "code-mode-api",
    }),
    {
      route: API_ROUTE,
      // Tasks count per caller as runs are placed (each local process its own share).
      tasks: { namespace: () => env.MCP_TASKS, countAs: currentCaller },
      ...(approvalKey ? { requestState: { key: approvalKey } } : {}),
    },
  );
  const code =
    config.upstream.kind === "off"
      ? undefined
      : codeHandler(config, env, executor, secrets, onRun, skills?.options);
  built = {
    config,
    launched,
    key,
    endpoints: {
      spec,
      specBytes: text.length,
      api: runs ? holdingRunWrites(api) : api,
      ...(code ? { code: runs ? holdingRunWrites(code) : code } : {}),
      ...(runs ? { runs } : {}),
      ...(skills ? { skills: skills.options, skillProblems: skills.problems } : {}),
    },
  };
  return built.endpoints;
}

/**
 * The product's skills: each principal's in their own `SkillStoreObject`, behind the
 * operator's read-only ones; undefined with `SKILLS=off`.
 */
function productSkills(
  config: AppConfig,
  env: Cloudflare.Env,
): { options: SkillsOptions; problems: string[] } | undefined {
  if (!config.skills.enabled) return undefined;
  const operator = operatorSkills(env, config.skills.limits);
  return {
    options: {
      store: withReadOnlySkills(
        durableSkillStore(env.SKILLS, config.skills.maxTokenOwners),
        operator.skills,
      ),
      owner: (authInfo) => skillOwner(config, authInfo),
      limits: config.skills.limits,
    },
    problems: operator.problems,
  };
}

/** Upstream MCP requests: an unreachable server is named (host, reason, the setting to check). */
const UPSTREAM_TARGET = { what: "the upstream MCP server", setting: "UPSTREAM_MCP_URL" };
// Its credential header goes only to its own origin: a redirect elsewhere is refused
// (same-origin-redirects.ts); fetch dropped only `Authorization` there.
const UPSTREAM_FETCH = sameOriginRedirects(namingFetch(UPSTREAM_TARGET), UPSTREAM_TARGET);

/** `/mcp/code`: one `code` tool over the configured upstream(s), the demo server or URLs. */
function codeHandler(
  config: AppConfig,
  env: Cloudflare.Env,
  executor: ReturnType<typeof createExecutor>,
  secrets: string[],
  onRun: { onRun?: RunRecorder },
  skills: SkillsOptions | undefined,
): StatelessMcpHandler {
  const servers = config.upstream.kind === "url" ? config.upstream.servers : [];
  const upstream: CodeUpstream | undefined =
    config.upstream.kind === "demo"
      ? { server: () => demoUpstreamServer(env.DEMO_STORE) }
      : servers.length === 1
        ? { url: servers[0]!.url, headers: servers[0]!.headers, fetch: UPSTREAM_FETCH }
        : undefined;
  // Several servers: one `code` tool over all of them, tool names prefixed by server name.
  const upstreams = upstream
    ? undefined
    : Object.fromEntries(
        servers.map((s): [string, CodeUpstream] => [
          s.name,
          { url: s.url, headers: s.headers, fetch: UPSTREAM_FETCH },
        ]),
      );
  return createMcpHandler(
    codeMcpServer({
      ...(upstream ? { upstream } : { upstreams: upstreams! }),
      executor,
      secrets,
      // The upstream's name and limits: the text the build step counts for the demo.
      ...codeToolText(config),
      ...onRun,
      ...(skills ? { skills } : {}),
      name: "code-mode-tools",
    }),
    { route: CODE_ROUTE, tasks: { namespace: () => env.MCP_TASKS, countAs: currentCaller } },
  );
}

/**
 * Every credential the Worker sends upstream, as the forms to redact: `API_TOKEN` (with its
 * scheme and bare) and each `UPSTREAM_MCP_AUTH` value (whole, and its bare token). Both endpoints
 * redact all of them: a credential never enters either sandbox, whichever upstream echoes it.
 * @param config - the checked configuration
 */
export function configuredSecrets(config: AppConfig): string[] {
  const upstream = config.upstream.kind === "url" ? config.upstream.servers : [];
  const values = upstream.flatMap((server) => Object.values(server.headers));
  return [...new Set([...targetSecrets(config.api), ...values.flatMap(credentialSecrets)])];
}

/**
 * The handler with each response delivered before the run history writes the run it answered
 * (both faces: `fetch` and the Worker callable).
 * @param handler - an MCP endpoint's handler
 */
function holdingRunWrites(handler: StatelessMcpHandler): StatelessMcpHandler {
  const callable = (request: Request, env: unknown, ctx: ExecutionContext) =>
    deliverThenRun(() => handler(request, env, ctx));
  return Object.assign(callable, {
    fetch: (...args: Parameters<StatelessMcpHandler["fetch"]>) =>
      deliverThenRun(() => handler.fetch(...args)),
    notify: handler.notify,
    bus: handler.bus,
    requestState: handler.requestState,
    close: () => handler.close(),
  });
}

let randomKey: string | undefined;

/** A per-isolate sealing key, used only when APPROVALS is on without REQUEST_STATE_KEY. */
function isolateKey(): string {
  randomKey ??= [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  return randomKey;
}
