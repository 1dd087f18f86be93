/**
 * `codeMcpServer()`: wraps an existing MCP server behind one tool, `code`. The model writes an
 * async arrow function against `codemode.*`; it runs in the sandbox, where each call reaches the
 * upstream tool, and only the returned value enters the model's context.
 *
 * Security defaults: the sandbox gets functions, never the upstream connection or its headers;
 * arguments are validated against each tool's input schema before the upstream sees them;
 * authorization and approvals stay in the upstream tools' handlers. Configured `secrets` (the
 * upstream credentials) are removed from every upstream result (text, `isError` text, structured
 * content, resource text and blobs, image and audio data), from failed calls' errors and from
 * the tool list before the sandbox sees them, from forwarded logs and progress, and again from
 * the final result.
 *
 * Does not do: expose the upstream's resources or prompts (tools only).
 */
import {
  LOG_LEVEL_META_KEY,
  McpServer,
  type CallToolResult,
  type LoggingLevel,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { CODE_INPUT } from "./code-input";
import type {
  ExecutorLimits,
  HostFunction,
  HostNamespaces,
  PrestartedRun,
} from "../executor/types";
import { CodeModeError } from "../errors";
import { resolveLimits } from "../executor/limits";
import { codeTurns } from "./code-turns";
import { refuseLongCode } from "./long-code";
import { TOOL_LIMITS } from "./tool-limits";
import { CodeCatalogs, type CallerTools } from "./code-catalogs";
import { outcomeToToolResult } from "./outcome-result";
import { assertRedactableSecrets } from "./redaction/redaction";
import { redactToolResult } from "./redaction/result-redaction";
import type { ToolCatalog } from "./upstream/tool-catalog";
import type { Redactor } from "./redaction/redaction";
import { sentCheck, type SentCheck } from "./request/sent-check";
import { sentData } from "./request/sent-data";
import { UpstreamSet } from "./upstream/upstream-set";
import { redactingErrors, upstreamResultValue } from "./upstream/upstream-result";
import { callUpstreamTool, type CallOptions } from "./upstream/upstream-call";
import { isCodeCallRequest } from "./code-call-request";
import { runSessions, type RunSessions } from "./upstream/run-sessions";
import { RunTrace } from "./runs/run-trace";
import { setTaskSupport } from "../mcp/tasks/task-tools";
import type { CodeMcpServerOptions, CodeServerRequest } from "./code-server-options";
import { resolveSkills } from "./skills/resolved-skills";
import { executeWithSkills, SkillRun } from "./skills/skill-run";
import { SKILLS_ROOM, skillsSection } from "./skills/skill-listing";
import {
  errorText,
  mayListTools,
  skillsFor,
  usableIn,
  withNotes,
  type CallerSkills,
} from "./skills/caller-skills";

export type { CodeMcpServerOptions, CodeServerRequest } from "./code-server-options";

/**
 * Creates a factory for `createMcpHandler` that builds the code-mode server per request. The
 * upstream's tool list and (for an instance) its connection live in the factory's closure, so
 * they are shared by every request the isolate serves (per authorization context when a remote
 * upstream's `headers` is a function of the caller).
 * @param options - upstream, executor and limits
 * @throws CodeModeError `upstream_invalid` without exactly one upstream option,
 *   `secret_too_short` for a secret shorter than 8 characters
 */
export function codeMcpServer(
  options: CodeMcpServerOptions,
): (request?: CodeServerRequest) => Promise<McpServer> {
  if ((options.upstream === undefined) === (options.upstreams === undefined)) {
    throw new CodeModeError(
      "upstream_invalid",
      "codeMcpServer: give exactly one of `upstream` (one server) or `upstreams` (several, by name).",
    );
  }
  assertRedactableSecrets(options.secrets ?? [], "codeMcpServer");
  const upstreams = new UpstreamSet(
    options.upstreams ?? options.upstream!,
    options.upstreams !== undefined,
    options.toolsTtlMs === undefined ? {} : { toolsTtlMs: options.toolsTtlMs },
  );
  // Validate the tool's limits now (bad config fails at start), but pass only the overrides to
  // each run, so limits configured on the executor itself (e.g. its timeout) still apply.
  const limits: Partial<ExecutorLimits> = { ...TOOL_LIMITS, ...options.limits };
  const { maxResultBytes } = resolveLimits(limits);
  // Resolved now, so a bad read-only skill fails at start; no store and no read-only skills: off.
  const skillsOption = options.skills && resolveSkills(options.skills) ? options.skills : undefined;
  const catalogs = new CodeCatalogs(upstreams, options.secrets ?? [], {
    serverName:
      options.upstreamName ??
      (options.upstreams
        ? Object.keys(options.upstreams).join(", ")
        : (options.name ?? "the upstream server")),
    // With skills on, the last SKILLS_ROOM characters of the budget are theirs.
    budget: (options.descriptionBudget ?? 2_048) - (skillsOption ? SKILLS_ROOM + 2 : 0),
    maxResultBytes,
    ...(options.description === undefined ? {} : { extra: options.description }),
  });

  return async (request?: CodeServerRequest) => {
    const listing = catalogs
      .forCaller({
        ...(request?.authInfo ? { authInfo: request.authInfo } : {}),
        ...(request?.requestInfo ? { request: request.requestInfo } : {}),
      })
      .catch((error: unknown) => {
        // A caller the `headers` function refuses learns why from the tool, not from a bare 500.
        if (error instanceof CodeModeError && error.code === "upstream_headers_failed")
          return error;
        throw error;
      });
    // A call of `code` shows no description: build its server now, and let the run load its
    // sandbox while a cold upstream's tools are still being listed (code-call-request.ts).
    const deferred = isCodeCallRequest(request?.requestInfo);
    if (deferred) listing.catch(() => {}); // awaited by the handler; never unhandled meanwhile
    const tools = deferred ? undefined : await listing;
    // Whose skills this request uses, and (for a listing) which they are.
    const skills = skillsOption && skillsFor(skillsOption, request?.authInfo, "code");
    const skillsText =
      skills && !deferred && !(tools instanceof Error) && mayListTools(request?.requestInfo)
        ? `\n\n${skillsSection(usableIn(await skills.store.list(skills.owner), "code"), SKILLS_ROOM)}`
        : "";
    const server = new McpServer(
      {
        name: options.name ?? "code-mode",
        version: options.version ?? "0.1.0",
      },
      { capabilities: { tools: {}, logging: {} } },
    );
    const refused = (error: Error): CallToolResult => ({
      isError: true,
      content: [{ type: "text", text: error.message }],
    });
    // This POST's code budget and turns (a JSON-RPC batch's members share them: code-turns.ts).
    const turns = codeTurns(options.executor, limits);
    const tool = server.registerTool(
      "code",
      {
        description:
          tools === undefined
            ? "Run JavaScript against the upstream's tools."
            : tools instanceof Error
              ? `Unavailable for this caller: ${tools.message}`
              : tools.description + skillsText,
        inputSchema: CODE_INPUT,
      },
      async ({ code }, ctx) => {
        const tooLong = refuseLongCode(code, options.executor, limits);
        if (tooLong) return tooLong;
        const overBatch = await turns.admit(code);
        if (overBatch) return overBatch;
        if (tools !== undefined)
          return tools instanceof Error
            ? refused(tools)
            : runCode(code, ctx, tools, options, limits, skills);
        const prestarted = options.executor.prestart?.({ code, limits });
        const listed = await listing.catch((error: unknown) => {
          prestarted?.dispose();
          throw error;
        });
        if (listed instanceof Error) {
          prestarted?.dispose();
          return refused(listed);
        }
        return runCode(code, ctx, listed, options, limits, skills, prestarted);
      },
    );
    setTaskSupport(tool, "optional"); // a task where the handler has `tasks` and the client opts in
    return server;
  };
}

/**
 * One run of `code`: the caller's upstream tools and the catalog's helpers as `codemode.*`, the
 * program run, its result redacted and recorded; the run's upstream sessions released after.
 */
async function runCode(
  code: string,
  ctx: ServerContext,
  tools: CallerTools,
  options: CodeMcpServerOptions,
  limits: Partial<ExecutorLimits>,
  skills: CallerSkills | undefined,
  prestarted?: PrestartedRun,
): Promise<CallToolResult> {
  const { catalog, routes, scopes, redactor } = tools;
  const logLevel = requestedLogLevel(ctx);
  // One connection per upstream a run actually calls, opened on first use, closed at the end.
  const sessions = runSessions(scopes, ctx, logLevel, redactor);
  // No prototype: an upstream's tool names are keys here, and none may reach an inherited one.
  const fns: Record<string, HostFunction> = Object.create(null) as Record<string, HostFunction>;
  const run = options.onRun && new RunTrace("code", options.name ?? "code-mode", code, redactor);
  const call = {
    ctx,
    tools,
    options,
    sessions,
    logLevel,
    progress: progressRelay(ctx, redactor),
    // The run's budget and slices for searching what it sends (./request/sent-check.ts).
    check: sentCheck(redactor),
  };
  for (const [index, entry] of catalog.entries.entries()) {
    // By position: merged names may coincide across upstreams (upstream-set.ts).
    const fn = upstreamToolFunction(entry, routes[index]!, call);
    fns[entry.identifier] = run ? run.toolCalls(entry.tool.name, fn) : fn;
  }
  Object.assign(fns, catalogHelpers(catalog));
  const namespaces: HostNamespaces = { codemode: fns };
  try {
    const skillRun = skills && (await SkillRun.open(skills, code));
    const outcome = await executeWithSkills(
      options.executor,
      {
        code,
        namespaces,
        limits,
        signal: ctx.mcpReq.signal,
        ...(prestarted ? { prestarted } : {}),
      },
      skillRun,
    );
    const notes = (await skillRun?.commit(outcome)) ?? [];
    if (skillRun) run?.usedSkills(skillRun.used());
    // Second line: no configured secret (or a simple transform of one) leaves in the result.
    const result = redactToolResult(withNotes(outcomeToToolResult(outcome), notes), redactor);
    run?.finish(outcome, result, options.onRun!, {
      authInfo: ctx.http?.authInfo,
    });
    await skillRun?.recordUses(result.isError ? errorText(result) : undefined);
    return result;
  } finally {
    prestarted?.dispose(); // a no-op once the run took it; frees it if the run never started
    await sessions.release();
  }
}

/**
 * The log level the client asked for: per request in 2026-07-28 (`_meta`), per session before
 * (the outer server then filters by the session's level, so ask the upstream for everything).
 */
function requestedLogLevel(ctx: ServerContext): LoggingLevel | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const asked = envelope?.[LOG_LEVEL_META_KEY] ?? ctx.mcpReq._meta?.[LOG_LEVEL_META_KEY];
  return (typeof asked === "string" ? asked : ctx.mcpReq.envelope ? undefined : "debug") as
    | LoggingLevel
    | undefined;
}

/** What every upstream tool function of one run shares. */
interface RunCall {
  ctx: ServerContext;
  tools: CallerTools;
  options: CodeMcpServerOptions;
  sessions: RunSessions;
  logLevel: LoggingLevel | undefined;
  /** The call option that passes the upstream's progress on, if the client asked for it. */
  progress: Pick<NonNullable<CallOptions>, "onprogress">;
  /** The run's search of what it sends: charged to the run, large parts in slices. */
  check: SentCheck;
}

/**
 * `codemode.<tool>(input)`: the input checked against the tool's schema, the call sent to its
 * upstream (with the client's log level and progress token) with its arguments redacted, the
 * result redacted. A failed
 * call's message may quote the credential (an upstream echoing its headers): redacted too.
 */
function upstreamToolFunction(
  entry: ToolCatalog["entries"][number],
  route: CallerTools["routes"][number],
  { ctx, tools: { catalog, redactor }, options, sessions, logLevel, progress, check }: RunCall,
): HostFunction {
  return redactingErrors(redactor, async ([input], call) => {
    const signal = call?.signal;
    if (options.validateInput !== false) {
      const problems = catalog.validate(entry, input);
      if (problems.length > 0)
        throw new TypeError(
          `codemode.${entry.identifier}() got invalid input: ${problems.join("; ")}. Check its declaration with codemode.${catalog.helperNames.describe}("${entry.identifier}").`,
        );
    }
    // What the program sends goes through the same search as what it returns: a credential it
    // pieced together must not leave through an upstream tool either.
    // The program chose their size: searched in slices and charged to the run (issue #40).
    const what = `codemode.${entry.identifier}()`;
    const args = await sentData(
      (input ?? {}) as Record<string, unknown>,
      redactor,
      check,
      what,
      signal,
    );
    // Value by value, `[...token]` (or its codes) is clean: one character is no credential. The
    // arguments as they go on the wire are read whole, as an API's body is (arrays of
    // characters and of codes are forms it reads), and such a call is not sent.
    const wire = JSON.stringify(args);
    if (wire !== undefined && (await check.text(wire, what, signal)) !== wire)
      throw new TypeError(
        `codemode.${entry.identifier}() was not called: its input holds the credential spread over several values (e.g. an array of its characters or character codes). Nothing was sent; send the upstream only the data it needs.`,
      );
    const result = await sessions.call(route.upstream, (session) =>
      callUpstreamTool(
        session,
        {
          name: route.name,
          arguments: args,
          ...(logLevel && session.client.getProtocolEra() === "modern"
            ? { _meta: { [LOG_LEVEL_META_KEY]: logLevel } }
            : {}),
        },
        { signal: ctx.mcpReq.signal, ...progress },
      ),
    );
    return upstreamResultValue(entry.tool.name, redactToolResult(result, redactor));
  });
}

/**
 * Passes an upstream's progress on to the client, when the client sent a progress token: the
 * numbers and the redacted message only, since anything else the upstream put in its
 * notification (`_meta`) would reach the client unredacted.
 */
function progressRelay(
  ctx: ServerContext,
  redactor: Redactor,
): Pick<NonNullable<CallOptions>, "onprogress"> {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return {};
  return {
    onprogress: (p) =>
      void ctx.mcpReq
        .notify({
          method: "notifications/progress",
          params: {
            progress: p.progress,
            ...(p.total === undefined ? {} : { total: p.total }),
            ...(p.message === undefined ? {} : { message: redactor.text(p.message) }),
            progressToken,
          },
        })
        .catch(() => {}),
  };
}

/**
 * The catalog's own helpers: they keep their plain names unless a tool took them;
 * `$search`/`$describe` always work.
 */
function catalogHelpers(catalog: ToolCatalog): Record<string, HostFunction> {
  const search: HostFunction = ([query, limit]) =>
    catalog.search(String(query ?? ""), typeof limit === "number" ? limit : 8);
  const describe: HostFunction = ([name]) => {
    const entry = catalog.find(String(name ?? ""));
    if (!entry)
      throw new TypeError(
        `No tool named "${String(name)}". Use codemode.${catalog.helperNames.search}("words") to find one.`,
      );
    return catalog.declaration(entry);
  };
  return {
    [catalog.helperNames.search]: search,
    [catalog.helperNames.describe]: describe,
    $search: search,
    $describe: describe,
  };
}
