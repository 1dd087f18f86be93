/**
 * The options of `codeMcpServer()` (code-mcp-server.ts) and what its factory reads from each
 * request.
 */
import type { ExecutorLimits, Executor } from "../executor/types";
import type { RunRecorder } from "./runs/run-record";
import type { SkillsOptions } from "./skills/skills-options";
import type { CodeUpstream, UpstreamCaller } from "./upstream/upstream-connection";

/** Options of `codeMcpServer()`. */
export interface CodeMcpServerOptions {
  /** The MCP server to wrap: an instance, `{ server: () => McpServer }` or `{ url, headers? }`. */
  upstream?: CodeUpstream;
  /**
   * Several MCP servers behind one `code` tool, by name (give this or `upstream`). With more than
   * one, tool names get the name as prefix: `github_create_issue`.
   */
  upstreams?: Record<string, CodeUpstream>;
  /** Runs the model's code (usually a `WorkerLoaderExecutor`). */
  executor: Executor;
  /** Name and version of the code-mode server (default `code-mode`, `0.1.0`). */
  name?: string;
  version?: string;
  /** Name of the wrapped server in the description (default: the upstream's own name). */
  upstreamName?: string;
  /** Extra guidance appended to the tool description. */
  description?: string;
  /** Maximum tool description length in characters (default 2,048). */
  descriptionBudget?: number;
  /** Executor limits for `code` runs. */
  limits?: Partial<ExecutorLimits>;
  /** Validate arguments against input schemas before calling the upstream (default true). */
  validateInput?: boolean;
  /** Freshness of a tool list from a per-run connection (default 5 minutes). */
  toolsTtlMs?: number;
  /**
   * Strings (the upstream credentials) that must never enter the sandbox or a result: each
   * header value and its bare token. Each at least 8 characters (`MIN_SECRET_LENGTH`).
   */
  secrets?: readonly string[];
  /**
   * Receives a record of every `code` run (program, outcome, upstream tool calls with name,
   * success and time, redacted result), once the result is built; not awaited (see `RunRecorder`).
   */
  onRun?: RunRecorder;
  /**
   * Saved skills (docs/skills.md): programs save functions with `skills.save()` and call them as
   * `skills.<name>(input)`; the description lists the caller's skills in the last
   * `SKILLS_ROOM` characters of its budget.
   */
  skills?: SkillsOptions;
}

/** What the factory reads from the handler's per-request context (`createMcpHandler` passes it). */
export interface CodeServerRequest {
  authInfo?: UpstreamCaller["authInfo"];
  requestInfo?: Request;
}
