/**
 * Human approval of API requests before they are sent, in the two ways MCP can ask:
 *
 * - **MRTR** (2026-07-28, stateless handler with a `requestState` key): the run stops at the
 *   first unapproved request; the tool answers `input_required` asking the user; the client
 *   retries with the answer and the code runs again. Approved and declined decisions, and the
 *   responses of requests already sent, travel in the sealed (tamper-proof) `requestState`, so on
 *   the rerun an already-sent request is replayed from the state, never sent twice.
 * - **Push** (sessions: McpAgent, legacy transports): the host asks with `elicitation/create`
 *   and waits for the answer on the original call's stream.
 *
 * Declining or cancelling refuses that one request with a catchable error; nothing is sent.
 */
import {
  acceptedContent,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ExecutionOutcome } from "../executor/types";
import { pushElicitation } from "../mcp/agent/push-elicitation";
import type { McpServerFactoryContext } from "../mcp/handler-types";
import type { AnyMcpServer } from "../mcp/server-product";
import type { CompactOperation } from "../openapi/types";
import type { ApiRequest } from "../openapi/validate-request";
import { RequestRefusedError } from "./api-request";
import type { ApiResult } from "./api-response";

/** Sealed between MRTR rounds. */
interface ApprovalState {
  approved: string[];
  declined: string[];
  /** Responses of approved requests already sent, by request key. */
  sent: Record<string, ApiResult>;
  pending?: { key: string; summary: string };
}

/** One run's approval handling (see the module comment). */
export interface ApprovalFlow {
  /** Whether the run waits for the person (push): its timeout must leave room for an answer. */
  readonly holdsRun: boolean;
  /** Reads the sealed state and this round's answer (MRTR); no-op for push. */
  load(): Promise<void>;
  /** Approves `request` or throws; returns a recorded response to replay instead of sending. */
  approve(
    request: ApiRequest,
    operation: CompactOperation | undefined,
  ): Promise<ApiResult | undefined>;
  /** Records the response of an approved request that was just sent. */
  sent(request: ApiRequest, result: ApiResult): void;
  /** After the run: the `input_required` result when a request awaits approval. */
  finish(outcome: ExecutionOutcome): Promise<CallToolResult | undefined>;
}

const ANSWER_KEY = "approve_request";
/** Largest recorded response kept in the state (larger ones replay as a note). */
const MAX_RECORDED = 16_384;
const APPROVE_SCHEMA = {
  type: "object" as const,
  properties: {
    approve: { type: "boolean" as const, title: "Send this request?", default: false },
  },
  required: ["approve"],
};

/** How long a push approval waits for the person (the run's own timeout applies too). */
export const APPROVAL_TIMEOUT_MS = 300_000;

/**
 * Creates the approval flow for one `execute` call.
 * @param server - the server serving the call (push elicitation goes through its protocol)
 * @param ctx - the tool call's context
 * @param factoryCtx - the handler's factory context (era and requestState codec), if any
 */
export function approvalFlow(
  server: AnyMcpServer,
  ctx: ServerContext,
  factoryCtx: McpServerFactoryContext | undefined,
): ApprovalFlow {
  const codec = factoryCtx?.era === "modern" ? factoryCtx.requestState : undefined;
  return codec ? mrtrFlow(ctx, codec) : pushFlow(server, ctx);
}

function pushFlow(server: AnyMcpServer, ctx: ServerContext): ApprovalFlow {
  return {
    holdsRun: true,
    load: async () => {},
    async approve(request) {
      let answer;
      try {
        // On the tool call's own stream (relatedRequestId), as sessions require.
        answer = await pushElicitation(
          server,
          {
            mode: "form",
            message: `Approve this API request?\n${summarize(request)}`,
            requestedSchema: APPROVE_SCHEMA,
          },
          { relatedRequestId: ctx.mcpReq.id, timeout: APPROVAL_TIMEOUT_MS },
        );
      } catch (error) {
        throw new RequestRefusedError(
          `${request.method} ${request.path} needs approval, but the client could not be asked (${(error as Error).message}). Nothing was sent.`,
        );
      }
      if (answer.action !== "accept" || answer.content?.["approve"] !== true) {
        throw new RequestRefusedError(
          `The user ${answer.action === "cancel" ? "cancelled" : "declined"} ${request.method} ${request.path}. Nothing was sent.`,
        );
      }
      return undefined;
    },
    sent: () => {},
    finish: async () => undefined,
  };
}

function mrtrFlow(
  ctx: ServerContext,
  codec: NonNullable<McpServerFactoryContext["requestState"]>,
): ApprovalFlow {
  let state: ApprovalState = { approved: [], declined: [], sent: {} };
  const seen = new Map<string, number>();
  const keyOf = (request: ApiRequest) => {
    const base = fingerprint(request);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return `${base}#${n}`;
  };
  const lastKey = new Map<string, string>();
  return {
    holdsRun: false,
    async load() {
      const sealed = ctx.mcpReq.requestState<ApprovalState>();
      if (sealed && typeof sealed === "object")
        state = {
          approved: [...sealed.approved],
          declined: [...sealed.declined],
          sent: { ...sealed.sent },
        };
      const pending = sealed && typeof sealed === "object" ? sealed.pending : undefined;
      if (!pending) return;
      const answer = inputResponse(ctx.mcpReq.inputResponses, ANSWER_KEY);
      if (answer.kind !== "elicit") return;
      const content = acceptedContent(ctx.mcpReq.inputResponses, ANSWER_KEY);
      (content?.["approve"] === true ? state.approved : state.declined).push(pending.key);
    },
    async approve(request) {
      const key = keyOf(request);
      lastKey.set(fingerprint(request), key);
      if (state.sent[key]) return state.sent[key];
      if (state.approved.includes(key)) return undefined;
      if (state.declined.includes(key))
        throw new RequestRefusedError(
          `The user declined ${request.method} ${request.path}. Nothing was sent.`,
        );
      state.pending ??= { key, summary: summarize(request) };
      throw new RequestRefusedError(
        `${request.method} ${request.path} is waiting for the user's approval; the run stops here and resumes after the answer. Nothing was sent.`,
      );
    },
    sent(request, result) {
      const key = lastKey.get(fingerprint(request));
      if (!key) return;
      const size = JSON.stringify(result.body ?? null).length;
      state.sent[key] =
        size <= MAX_RECORDED
          ? result
          : { ...result, body: `[response of ${size} bytes not kept for replay]` };
    },
    async finish() {
      if (!state.pending) return undefined;
      return inputRequired({
        inputRequests: {
          [ANSWER_KEY]: inputRequired.elicit({
            message: `Approve this API request?\n${state.pending.summary}`,
            requestedSchema: APPROVE_SCHEMA,
          }),
        },
        requestState: await codec.mint(state, ctx),
      }) as unknown as CallToolResult;
    },
  };
}

/** A short human-readable summary of a request for the approval prompt. */
function summarize(request: ApiRequest): string {
  const query =
    request.query && Object.keys(request.query).length > 0
      ? `?${new URLSearchParams(Object.entries(request.query).map(([k, v]) => [k, String(v)])).toString()}`
      : "";
  const body = request.body === undefined ? "" : `\n${JSON.stringify(request.body).slice(0, 500)}`;
  return `${request.method} ${request.path}${query}${body}`;
}

/** Stable identity of a request's content (same method, path, query and body → same key). */
function fingerprint(request: ApiRequest): string {
  return JSON.stringify([
    request.method,
    request.path,
    sortKeys(request.query ?? {}),
    sortKeys(request.body ?? null),
  ]);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .toSorted()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  return value;
}
