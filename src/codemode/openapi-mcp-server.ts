/**
 * `openApiMcpServer()`: a whole HTTP API behind two tools. `search` runs model code against the
 * OpenAPI document inside the sandbox (only what the code returns enters the context);
 * `execute` runs model code with `codemode.request()`, which the host checks against the spec and
 * sends through its request callback, where credentials live.
 *
 * Security defaults: the sandbox gets a request function, never a credential; requests are
 * validated against the spec before the callback runs; configured `secrets` are redacted from
 * responses; approval (when enabled) happens before anything is sent.
 *
 * Does not do: send requests itself (the host callback does), or validate responses.
 *
 * Per-isolate work: the spec is parsed, indexed and serialized for the sandbox once, when
 * `openApiMcpServer()` is called; building the server per request is cheap.
 */
import { McpServer, type CallToolResult, type ServerContext } from "@modelcontextprotocol/server";
import { CODE_INPUT } from "./code-input";
import { SpecDeclarations } from "../declarations/spec-declarations";
import { resolveLimits } from "../executor/limits";
import { codeTurns, type CodeTurns } from "./code-turns";
import { refuseLongCode } from "./long-code";
import { TOOL_LIMITS } from "./tool-limits";
import type { Executor, ExecutorLimits, HostFunction, HostNamespaces } from "../executor/types";
import type { McpServerFactoryContext } from "../mcp/stateless/handler-types";
import { setTaskSupport } from "../mcp/tasks/task-tools";
import { loadSpec, OpenApiSpec } from "../openapi/openapi-spec";
import { packedIndex, packedOperationFields, packSpec } from "../openapi/spec-pack";
import { indexFirstSearch, pastIndexWords, type ShippedSpec } from "./index-first-search";
import { nonReadRequests, type ApiRequestHandler, type ApprovalCheck } from "./request/api-request";
import { apiRequester } from "./api-requester";
import { APPROVAL_TIMEOUT_MS, approvalFlow } from "./approvals/approval-flow";
import { isolateApprovalLedger, type ApprovalLedger } from "./approvals/approval-ledger";
import { outcomeToToolResult } from "./outcome-result";
import { assertRedactableSecrets, secretRedactor, type Redactor } from "./redaction/redaction";
import { withheldOperations } from "./request/withheld-bodies";
import { responseLimits, type ResponseLimits } from "./request/response-budget";
import { redactToolResult } from "./redaction/result-redaction";
import { executeDescription, searchDescription } from "./openapi-tool-descriptions";
import type { RunRecorder } from "./runs/run-record";
import { RunTrace } from "./runs/run-trace";
import { errorText, mayListTools, skillsFor, usableIn, withNotes } from "./skills/caller-skills";
import { SKILLS_ROOM, skillsSection } from "./skills/skill-listing";
import { resolveSkills } from "./skills/resolved-skills";
import { executeWithSkills, SkillRun } from "./skills/skill-run";
import type { SkillsOptions } from "./skills/skills-options";

/** Options of {@link openApiMcpServer}. */
export interface OpenApiMcpServerOptions {
  /** A compact spec (build step), an OpenAPI 2.0/3.0/3.1 document or its JSON text, or a loaded spec. */
  spec: unknown;
  /** Runs the model's code (usually a `WorkerLoaderExecutor`). */
  executor: Executor;
  /** Sends a checked request upstream; add credentials here. */
  request: ApiRequestHandler;
  /** Server name and version (default `openapi-code-mode`, `0.1.0`). */
  name?: string;
  version?: string;
  /** Extra guidance appended to both tool descriptions. */
  description?: string;
  /** Executor limits for both tools. */
  limits?: Partial<ExecutorLimits>;
  /** Check requests against the spec before the callback (default true). */
  validateRequests?: boolean;
  /**
   * Strings (credentials) that must never enter the sandbox or a result: removed from responses
   * (every channel), callback errors, the spec and declarations, and final results. Each at least
   * 8 characters (`MIN_SECRET_LENGTH`).
   */
  secrets?: readonly string[];
  /**
   * Ask a person before sending requests: `true` for every non-GET request, or a predicate.
   * Uses `input_required` (MRTR) on the stateless handler and push elicitation in sessions.
   * An approval covers exactly the request shown (method, canonical path, query, headers,
   * content type, body or raw body) and one send of it.
   */
  approval?: boolean | ApprovalCheck;
  /**
   * Where MRTR approvals are claimed so each is used once (a replayed round sends nothing).
   * Default: a per-isolate in-memory ledger, so single use holds per isolate; pass a shared one
   * (e.g. backed by a Durable Object) when rounds may reach different isolates.
   */
  approvalLedger?: ApprovalLedger;
  /**
   * Receives a record of every `search` and `execute` run (program, outcome, requests with
   * method, path, status and time, redacted result), once the result is built; not awaited, so
   * the run does not wait for it (see `RunRecorder`). For a run history.
   */
  onRun?: RunRecorder;
  /**
   * Operation ids whose response bodies never reach the program: it gets the status, the
   * (redacted) headers and a note instead. For operations known to reflect the request (an echo
   * or debug endpoint), whose answers could carry the credential in a form redaction cannot read
   * (split across responses, XOR, compressed inside the body). An id the spec does not declare
   * is refused at start (`invalid_option`).
   */
  withholdResponseBodies?: readonly string[];
  /**
   * Bytes of one API response body the host reads for `execute` (default 16 MiB, at most
   * 32 MiB): past it the body is cancelled and the program gets a `LimitError` saying to ask
   * for less, never part of the body.
   */
  maxResponseBytes?: number;
  /**
   * Bytes of API response bodies one `execute` run reads, all together (default 64 MiB, at
   * most 1 GiB): past it the next body is cancelled the same way.
   */
  maxResponseBytesPerRun?: number;
  /**
   * Saved skills in `execute` (docs/skills.md): programs save functions with `skills.save()` and
   * call them as `skills.<name>(input)`; the description says how and lists the caller's skills.
   * With this option the factory is asynchronous (it reads the caller's list from the store).
   */
  skills?: SkillsOptions;
}

/**
 * Creates a factory for `createMcpHandler` (or for an agent's `init()`), building the two-tool
 * server per request over a spec parsed once.
 * @param options - spec, executor, request callback and policies
 * @throws CodeModeError `spec_invalid` when the spec does not load, `secret_too_short` for a
 *   secret shorter than 8 characters, `invalid_option` for a response limit out of range
 */
export function openApiMcpServer(
  options: OpenApiMcpServerOptions & { skills: SkillsOptions },
): (ctx?: McpServerFactoryContext) => Promise<McpServer>;
export function openApiMcpServer(
  options: OpenApiMcpServerOptions & { skills?: undefined },
): (ctx?: McpServerFactoryContext) => McpServer;
export function openApiMcpServer(
  options: OpenApiMcpServerOptions,
): (ctx?: McpServerFactoryContext) => McpServer | Promise<McpServer>;
export function openApiMcpServer(
  options: OpenApiMcpServerOptions,
): (ctx?: McpServerFactoryContext) => McpServer | Promise<McpServer> {
  const setup = prepare(options);
  const build = (factoryCtx: McpServerFactoryContext | undefined, executeText: string) => {
    const server = new McpServer(
      { name: setup.serverName, version: options.version ?? "0.1.0" },
      { capabilities: { tools: {} } },
    );
    // This POST's code budget and turns (a JSON-RPC batch's members share them: code-turns.ts).
    const turns = codeTurns(options.executor, setup.limits);
    registerSearch(server, setup, turns);
    registerExecute(server, setup, turns, factoryCtx, executeText);
    return server;
  };
  // Resolved now, so a bad read-only skill fails at start; no store and no read-only skills: off.
  const skillsOption = options.skills && resolveSkills(options.skills) ? options.skills : undefined;
  if (!skillsOption)
    return (factoryCtx?: McpServerFactoryContext) => build(factoryCtx, setup.executeText);
  // With skills, `execute` lists the caller's (read from the store); a request that lists no
  // tools (a call, a discovery) skips the read.
  return async (factoryCtx?: McpServerFactoryContext) => {
    const skills = skillsFor(skillsOption, factoryCtx?.authInfo, "execute");
    // A caller with no owner has no skills: the description says nothing of them.
    if (!skills) return build(factoryCtx, setup.executeText);
    const listed = mayListTools(factoryCtx?.requestInfo)
      ? usableIn(await skills.store.list(skills.owner), "execute")
      : [];
    return build(factoryCtx, `${setup.executeText}\n\n${skillsSection(listed, SKILLS_ROOM)}`);
  };
}

/** What {@link openApiMcpServer} prepares once per isolate for every server it builds. */
interface Setup {
  options: OpenApiMcpServerOptions;
  spec: OpenApiSpec;
  /** The configured secrets, one frozen list (the redactor is found again by every run). */
  secrets: readonly string[];
  redactor: Redactor;
  /** The tools' limit overrides (validated at start). */
  limits: Partial<ExecutorLimits>;
  serverName: string;
  searchText: string;
  executeText: string;
  needsApproval: ApprovalCheck | undefined;
  /** `codemode.declaration(operationId)`: one operation's TypeScript declaration. */
  declaration: HostFunction;
  /** The spec as the sandbox gets it. */
  shippedSpec: () => string | Uint8Array;
  /** The spec as a search ships it: its index first where it has one (index-first-search.ts). */
  searchSpec: () => ShippedSpec;
  /** A trace of one run, when the host records runs. */
  trace: (tool: "search" | "execute", code: string) => RunTrace | undefined;
  /** Operation ids whose response bodies are withheld (checked against the spec). */
  withhold: ReadonlySet<string>;
  /** Bytes of response bodies a run reads, per body and per run (checked at start). */
  responseLimits: ResponseLimits;
}

/** Checks the options and builds what every server shares (bad config fails here, at start). */
function prepare(options: OpenApiMcpServerOptions): Setup {
  assertRedactableSecrets(options.secrets ?? [], "openApiMcpServer");
  // One frozen list: the redactor is compiled once and found again by every run.
  const secrets = Object.freeze([...(options.secrets ?? [])]);
  const redactor = secretRedactor(secrets);
  const spec = options.spec instanceof OpenApiSpec ? options.spec : loadSpec(options.spec);
  // Validate the tool's limits now (bad config fails at start), but pass only the overrides to
  // each run, so limits configured on the executor itself (e.g. its timeout) still apply.
  const limits: Partial<ExecutorLimits> = { ...TOOL_LIMITS, ...options.limits };
  const { maxResultBytes } = resolveLimits(limits);
  const describeInput = {
    spec,
    maxResultBytes,
    ...(options.description === undefined ? {} : { extra: options.description }),
  };
  const serverName = options.name ?? "openapi-code-mode";
  const shippedSpec = shippedSpecOnce(spec, redactor);
  return {
    options,
    spec,
    secrets,
    redactor,
    limits,
    serverName,
    // The descriptions quote the spec, which may carry an example key.
    searchText: redactor.text(searchDescription(describeInput)),
    executeText: redactor.text(executeDescription(describeInput)),
    needsApproval:
      options.approval === true
        ? nonReadRequests
        : typeof options.approval === "function"
          ? options.approval
          : undefined,
    declaration: operationDeclarations(spec, redactor),
    shippedSpec,
    searchSpec: searchSpecOnce(shippedSpec),
    trace: (tool, code) => options.onRun && new RunTrace(tool, serverName, code, redactor),
    withhold: withheldOperations(
      spec,
      options.withholdResponseBodies,
      "openApiMcpServer: withholdResponseBodies",
    ),
    responseLimits: responseLimits({
      ...(options.maxResponseBytes === undefined ? {} : { maxBytes: options.maxResponseBytes }),
      ...(options.maxResponseBytesPerRun === undefined
        ? {}
        : { maxBytesPerRun: options.maxResponseBytesPerRun }),
    }),
  };
}

/** `codemode.declaration(operationId)`, each operation's text built (and redacted) once. */
function operationDeclarations(spec: OpenApiSpec, redactor: Redactor): HostFunction {
  const declarations = new SpecDeclarations(spec.compact);
  const declared = new Map<string, string>();
  return ([operationId]: unknown[]) => {
    const id = String(operationId ?? "");
    let text = declared.get(id);
    if (text === undefined) {
      const op = spec.operationById(id);
      if (!op)
        throw new TypeError(
          `No operation with operationId "${id}". Search codemode.spec() for the right id.`,
        );
      text = redactor.text(declarations.operation(op).text);
      declared.set(id, text);
    }
    return text;
  };
}

/**
 * The spec as shipped to the sandbox, built on first use and kept for the isolate. Packed bytes
 * cross RPC faster than text and decode on demand (src/openapi/spec-pack.ts). With secrets
 * configured, the sandbox gets a copy of the spec without them (a spec may carry an example
 * key). Only string values are redacted, never keys: keys are the document's structure.
 */
function shippedSpecOnce(spec: OpenApiSpec, redactor: Redactor): () => string | Uint8Array {
  let specData: string | Uint8Array | undefined;
  return () => {
    if (specData === undefined) {
      const shipped = redactor.values(spec.compact);
      specData = packSpec(shipped) ?? JSON.stringify(shipped);
    }
    return specData;
  };
}

/** The spec for `search`: the packed bytes and their index part, cut once. */
function searchSpecOnce(shippedSpec: () => string | Uint8Array): () => ShippedSpec {
  let shipped: ShippedSpec | undefined;
  return () => {
    if (shipped === undefined) {
      const whole = shippedSpec();
      shipped =
        typeof whole === "string"
          ? { whole }
          : {
              whole,
              index: packedIndex(whole),
              pastIndex: pastIndexWords(packedOperationFields(whole)),
            };
    }
    return shipped;
  };
}

/** The `search` tool: the program reads the spec (`codemode.spec()`), nothing is sent. */
function registerSearch(server: McpServer, setup: Setup, turns: CodeTurns): void {
  const { options, redactor, limits, declaration } = setup;
  server.registerTool(
    "search",
    {
      description: setup.searchText,
      inputSchema: CODE_INPUT,
      annotations: { readOnlyHint: true },
    },
    async ({ code }, ctx) => {
      const tooLong = refuseLongCode(code, options.executor, limits);
      if (tooLong) return tooLong;
      const overBatch = await turns.admit(code);
      if (overBatch) return overBatch;
      const run = setup.trace("search", code);
      // `skills.declarations()`: the caller's skills as TypeScript, next to the spec's.
      const skills = options.skills && skillsFor(options.skills, ctx.http?.authInfo, "execute");
      // The listing only: a search calls no skill, so no skill's code is loaded for it.
      const skillRun = skills && (await SkillRun.openForSearch(skills, code));
      const namespaces: HostNamespaces = {
        codemode: { declaration },
        ...skillRun?.searchRequest().namespaces,
      };
      const outcome = await indexFirstSearch(
        options.executor,
        { code, namespaces, limits, signal: ctx.mcpReq.signal },
        setup.searchSpec(),
      );
      // Second line: no configured secret (or a simple transform of one) leaves in the result's
      // text; its structure (`type`, `isError`) is never touched.
      const result = redactToolResult(outcomeToToolResult(outcome), redactor);
      run?.finish(outcome, result, options.onRun!, {
        authInfo: ctx.http?.authInfo,
      });
      return result;
    },
  );
}

/**
 * The `execute` tool: the program sends checked requests through the host's callback
 * (`codemode.request()`), asking a person first where approval is configured.
 */
function registerExecute(
  server: McpServer,
  setup: Setup,
  turns: CodeTurns,
  factoryCtx: McpServerFactoryContext | undefined,
  executeText: string,
): void {
  const { options, redactor, limits, declaration, needsApproval } = setup;
  // Long programs (approvals, paging, fan-out) may run as MCP tasks where the handler has the
  // `tasks` option and the client declared the extension; otherwise the call is as before.
  setTaskSupport(
    server.registerTool(
      "execute",
      {
        description: executeText,
        inputSchema: CODE_INPUT,
        annotations: { readOnlyHint: false, openWorldHint: true },
      },
      async ({ code }, ctx): Promise<CallToolResult> => {
        const tooLong = refuseLongCode(code, options.executor, limits);
        if (tooLong) return tooLong;
        const overBatch = await turns.admit(code);
        if (overBatch) return overBatch;
        const approvals = needsApproval
          ? approvalFlow(server, ctx, factoryCtx, options.approvalLedger ?? isolateApprovalLedger)
          : undefined;
        await approvals?.load();
        const request = apiRequester({
          spec: setup.spec,
          handler: options.request,
          validate: options.validateRequests !== false,
          secrets: setup.secrets,
          withhold: setup.withhold,
          responseLimits: setup.responseLimits,
          mcp: ctx as ServerContext,
          ...(approvals && needsApproval ? { approve: approvals.approve, needsApproval } : {}),
        });
        const run = setup.trace("execute", code);
        const send = redactingErrors(redactor, request);
        const namespaces: HostNamespaces = {
          codemode: { request: run ? run.requests(send) : send, declaration },
        };
        // A push approval waits for a person inside the run: unless the operator chose a timeout,
        // give the run as long as the question may stay open.
        const runLimits =
          approvals?.holdsRun && options.limits?.timeoutMs === undefined
            ? { ...limits, timeoutMs: APPROVAL_TIMEOUT_MS + 30_000 }
            : limits;
        const skills = options.skills && skillsFor(options.skills, ctx.http?.authInfo, "execute");
        const skillRun = skills && (await SkillRun.open(skills, code));
        const outcome = await executeWithSkills(
          options.executor,
          {
            code,
            namespaces,
            limits: runLimits,
            signal: ctx.mcpReq.signal,
            // Presents the host's { status, ok, headers, body } as the body or an ApiError; and
            // `codemode.spec()` as in search (as @cloudflare/codemode offers it in execute),
            // shipped only to programs that mention it, so the common run stays as cheap as it
            // was.
            extensions: [
              { name: "request", data: "" },
              ...(/\bspec\b/.test(code)
                ? [{ name: "openapi" as const, data: setup.shippedSpec() }]
                : []),
            ],
          },
          skillRun,
        );
        const pending = await approvals?.finish(outcome);
        // A run waiting for an approval is run again once answered: that run saves, not this one.
        const notes = pending ? [] : ((await skillRun?.commit(outcome)) ?? []);
        if (skillRun) run?.usedSkills(skillRun.used());
        // Second line: whatever the code did, no configured secret leaves in the result.
        const result = redactToolResult(
          pending ?? withNotes(outcomeToToolResult(outcome), notes),
          redactor,
        );
        run?.finish(outcome, result, options.onRun!, {
          authInfo: ctx.http?.authInfo,
        });
        await skillRun?.recordUses(result.isError ? errorText(result) : undefined);
        return result;
      },
    ),
    "optional",
  );
}

/**
 * The host function behind `codemode.request()`: a refusal may quote the spec (an enum or a
 * pattern holding a key), so what it throws reaches the sandbox with the secrets removed. Stays
 * synchronous when the request answers synchronously.
 */
function redactingErrors(
  redactor: Redactor,
  request: ReturnType<typeof apiRequester>,
): HostFunction {
  if (!redactor.active) return (args, call) => request(args[0], call.signal);
  const refuse = (error: unknown): never => {
    throw redactor.error(error);
  };
  return (args, call) => {
    try {
      const answer = request(args[0], call.signal);
      return answer instanceof Promise ? answer.catch(refuse) : answer;
    } catch (error) {
      return refuse(error);
    }
  };
}
