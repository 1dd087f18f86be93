/**
 * Human approval of API requests before they are sent, in the two ways MCP can ask:
 *
 * - **MRTR** (2026-07-28, stateless handler with a `requestState` key): the run stops at the
 *   first unapproved request; the tool answers `input_required` asking the user; the client
 *   retries with the answer and the code runs again. Decisions, and the responses of requests
 *   already sent, travel in the sealed (tamper-proof) `requestState`, so on the rerun an
 *   already-sent request is replayed from the state, never sent twice. Each approval is
 *   single-use: it carries a random id and an expiry, and sending claims the id in an
 *   {@link ApprovalLedger}, so replaying an accepted round sends nothing.
 * - **Push** (sessions: McpAgent, legacy transports): the host asks with `elicitation/create`
 *   and waits for the answer on the original call's stream; the answer covers that one send.
 *
 * Either way an approval is bound to everything that is sent (method, canonical path, query,
 * headers, content type, body, raw body) and the prompt shows exactly that
 * ({@link approvalPrompt}). Declining or cancelling refuses that one request with a catchable
 * error; nothing is sent.
 */
import {
  acceptedContent,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ExecutionOutcome } from "../../executor/types";
import { pushElicitation } from "../../mcp/sessions/agent/push-elicitation";
import type { McpServerFactoryContext } from "../../mcp/stateless/handler-types";
import type { AnyMcpServer } from "../../mcp/common/server-kind";
import type { CompactOperation } from "../../openapi/types";
import type { ApiRequest } from "../../openapi/validate-request";
import { RequestRefusedError } from "../request/api-request";
import type { ApiResult } from "../request/api-response";
import type { ApprovalLedger } from "./approval-ledger";
import { approvalPrompt } from "./approval-prompt";
import { requestFingerprint } from "../request/request-fingerprint";

/** One approval the user gave: single-use (its id is claimed when sent), until it expires. */
interface Grant {
  key: string;
  id: string;
  expiresAt: number;
}

/** Sealed between MRTR rounds. */
interface ApprovalState {
  approved: Grant[];
  declined: string[];
  /** Responses of approved requests already sent, by request key. */
  sent: Record<string, ApiResult>;
  /** Approved requests whose sending failed, by request key: the (redacted) error message. */
  failed: Record<string, string>;
  pending?: Grant & { summary: string };
}

/** What the flow decided for a request that needs approval (it throws when refused). */
export type ApprovalDecision =
  /** Sent in an earlier round: answer with this, send nothing. */
  | { kind: "replay"; result: ApiResult }
  /** Approved for this one send: send it, then report how it went. */
  | { kind: "send"; record(outcome: { result: ApiResult } | { error: string }): void };

/** One run's approval handling (see the module comment). */
export interface ApprovalFlow {
  /** Whether the run waits for the person (push): its timeout must leave room for an answer. */
  readonly holdsRun: boolean;
  /** Reads the sealed state and this round's answer (MRTR); no-op for push. */
  load(): Promise<void>;
  /** Approves `request` (exactly as it will be sent) or throws a RequestRefusedError. */
  approve(request: ApiRequest, operation: CompactOperation | undefined): Promise<ApprovalDecision>;
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
 * How long an MRTR approval stays usable after it was asked for. The sealed state itself expires
 * with the handler's `requestState` lifetime (ten minutes by default), whichever comes first.
 */
export const APPROVAL_TTL_MS = 15 * 60_000;

/**
 * Creates the approval flow for one `execute` call.
 * @param server - the server serving the call (push elicitation goes through its protocol)
 * @param ctx - the tool call's context
 * @param factoryCtx - the handler's factory context (era and requestState codec), if any
 * @param ledger - where MRTR approvals are claimed (single use)
 */
export function approvalFlow(
  server: AnyMcpServer,
  ctx: ServerContext,
  factoryCtx: McpServerFactoryContext | undefined,
  ledger: ApprovalLedger,
): ApprovalFlow {
  const codec = factoryCtx?.era === "modern" ? factoryCtx.requestState : undefined;
  return codec ? mrtrFlow(ctx, codec, ledger) : pushFlow(server, ctx);
}

const SENT_ONCE: ApprovalDecision = { kind: "send", record: () => {} };

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
            message: `Approve this API request?\n${approvalPrompt(request)}`,
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
      // The answer covers this one request object, which the caller sends next and only once.
      return SENT_ONCE;
    },
    finish: async () => undefined,
  };
}

function mrtrFlow(
  ctx: ServerContext,
  codec: NonNullable<McpServerFactoryContext["requestState"]>,
  ledger: ApprovalLedger,
): ApprovalFlow {
  let state: ApprovalState = { approved: [], declined: [], sent: {}, failed: {} };
  // The n-th identical request of a run is its own request: approving one covers one send.
  const seen = new Map<string, number>();
  const keyOf = async (request: ApiRequest) => {
    const base = await requestFingerprint(request);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return `${base}#${n}`;
  };
  return {
    holdsRun: false,
    async load() {
      const sealed = ctx.mcpReq.requestState<Partial<ApprovalState>>();
      if (!sealed || typeof sealed !== "object") return;
      const now = Date.now();
      state = {
        approved: (sealed.approved ?? []).filter((grant) => grant.expiresAt > now),
        declined: [...(sealed.declined ?? [])],
        sent: { ...sealed.sent },
        failed: { ...sealed.failed },
      };
      const pending = sealed.pending;
      if (!pending) return;
      const answer = inputResponse(ctx.mcpReq.inputResponses, ANSWER_KEY);
      if (answer.kind !== "elicit") return;
      const content = acceptedContent(ctx.mcpReq.inputResponses, ANSWER_KEY);
      if (content?.["approve"] !== true) state.declined.push(pending.key);
      // An approval answered after it expired is not one: the request is asked for again.
      else if (pending.expiresAt > now)
        state.approved.push({ key: pending.key, id: pending.id, expiresAt: pending.expiresAt });
    },
    async approve(request) {
      const key = await keyOf(request);
      const recorded = state.sent[key];
      if (recorded) return { kind: "replay", result: recorded };
      const failure = state.failed[key];
      if (failure !== undefined)
        throw new RequestRefusedError(
          `${request.method} ${request.path} was sent in an earlier round and failed (${failure}); it is not sent again.`,
        );
      const grant = state.approved.find((g) => g.key === key);
      if (grant) {
        await claim(grant, request);
        state.approved = state.approved.filter((g) => g !== grant);
        return {
          kind: "send",
          record(outcome) {
            if ("error" in outcome) state.failed[key] = outcome.error;
            else state.sent[key] = bounded(outcome.result);
          },
        };
      }
      if (state.declined.includes(key))
        throw new RequestRefusedError(
          `The user declined ${request.method} ${request.path}. Nothing was sent.`,
        );
      state.pending ??= {
        key,
        id: randomId(),
        expiresAt: Date.now() + APPROVAL_TTL_MS,
        summary: approvalPrompt(request),
      };
      throw new RequestRefusedError(
        `${request.method} ${request.path} is waiting for the user's approval; the run stops here and resumes after the answer. Nothing was sent.`,
      );
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

  async function claim(grant: Grant, request: ApiRequest): Promise<void> {
    let first: boolean;
    try {
      first = await ledger.claim(grant.id, grant.expiresAt);
    } catch (error) {
      throw new RequestRefusedError(
        `${request.method} ${request.path}: the approval could not be recorded as used (${(error as Error).message}); nothing was sent.`,
      );
    }
    if (!first)
      throw new RequestRefusedError(
        `this approval was already used; nothing was sent. (${request.method} ${request.path} was approved for one send and a replayed answer does not send it again: call the tool again to be asked anew.)`,
      );
  }
}

function bounded(result: ApiResult): ApiResult {
  const size = JSON.stringify(result.body ?? null).length;
  return size <= MAX_RECORDED
    ? result
    : { ...result, body: `[response of ${size} bytes not kept for replay]` };
}

function randomId(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}
