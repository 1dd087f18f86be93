/**
 * The host function behind one run's `codemode.request()`: normalizes the program's request,
 * checks it against the spec, asks for approval when required, hands it to the host's callback
 * and shapes the answer for the sandbox (redacted of configured secrets). See api-request.ts for
 * the request rules and the callback's contract.
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import type { OpenApiSpec } from "../openapi/openapi-spec";
import type { CompactOperation } from "../openapi/types";
import { validateRequest, type ApiRequest } from "../openapi/validate-request";
import {
  normalizeApiRequest,
  RequestRefusedError,
  type ApiRequestHandler,
  type ApprovalCheck,
} from "./request/api-request";
import type { ApprovalDecision } from "./approvals/approval-flow";
import {
  asResponseInit,
  plainApiResult,
  toApiResult,
  type ApiResult,
} from "./request/api-response";
import { secretRedactor } from "./redaction/redaction";
import { collectionBudget } from "./request/large-body-collection";
import { responseBudget, type ResponseLimits } from "./request/response-budget";
import { methodOverrideRefusal } from "./request/method-override";
import { partialContentRefusal } from "./request/request-headers";
import { withoutBody } from "./request/withheld-bodies";
import { sentCheck } from "./request/sent-check";
import { plainAnswer } from "./request/plain-answer";

/** Everything one run's `codemode.request()` needs. */
export interface ApiRequesterOptions {
  spec: OpenApiSpec;
  handler: ApiRequestHandler;
  validate: boolean;
  secrets: readonly string[];
  mcp: ServerContext;
  /** Called before the handler for requests that need approval; throws to refuse. */
  approve?: (
    request: ApiRequest,
    operation: CompactOperation | undefined,
  ) => Promise<ApprovalDecision>;
  needsApproval?: ApprovalCheck;
  /** Operation ids whose response bodies never reach the program (./request/withheld-bodies.ts). */
  withhold?: ReadonlySet<string>;
  /** Bytes of response bodies read per body and per run (./request/response-budget.ts). */
  responseLimits?: Partial<ResponseLimits>;
  /**
   * Characters of what the run sends that are searched for the credential, at most (default
   * `MAX_SENT_CHARS_PER_RUN`, ./request/sent-check.ts). Tests set a small one: filling the
   * default searches 64 Mi characters, seconds of a core.
   */
  maxSentChars?: number;
}

/**
 * Builds the host function behind `codemode.request()` for one run. It answers synchronously
 * when it can (no approval, a plain answer from the callback): this runs on every call, and a
 * value needs no promise, no microtask hop and no wait by the RPC layer. Refusals throw.
 * @param options - spec, callback, validation and approval settings
 */
export function apiRequester(options: ApiRequesterOptions) {
  // Forced collections around large bodies are bounded per run: the program chose the bodies.
  const collections = collectionBudget();
  // So are the bytes of response bodies it reads: the program chose what it asked for.
  const responses = responseBudget(options.responseLimits);
  // What the callback throws enters the sandbox as an exception: never with a secret in it.
  const redactor = secretRedactor(options.secrets);
  // What the program sends is searched too, charged to the run and in slices when large
  // (./request/sent-check.ts): the program chooses how much and how often it sends.
  const check = sentCheck(redactor, {
    collections,
    ...(options.maxSentChars !== undefined && { maxChars: options.maxSentChars }),
  });
  // A plain answer's large body is searched in slices as well (./request/plain-answer.ts); its
  // size is the callback's, so it is not charged to what the run sends.
  const answers = sentCheck(redactor, { collections, maxChars: Number.POSITIVE_INFINITY });
  const finish =
    (signal: AbortSignal) =>
    (response: unknown): ApiResult | Promise<ApiResult> =>
      response instanceof Response
        ? toApiResult(response, options.secrets, collections, responses, signal)
        : plainAnswer(asResponseInit(response), redactor, answers, signal);
  // An operation known to reflect the request: its body is dropped unread, before redaction.
  const finishFor = (operation: CompactOperation | undefined, signal: AbortSignal) => {
    const id = operation?.operationId;
    return id !== undefined && options.withhold?.has(id)
      ? (response: unknown) => plainApiResult(withoutBody(response, id), options.secrets)
      : finish(signal);
  };
  /** The request, as the program gave it, as the one text the search reads. */
  const wireOf = (request: ApiRequest): string | undefined => {
    const raw = request.rawBody;
    return JSON.stringify([
      request.path,
      request.query,
      request.headers,
      request.body,
      request.contentType,
      raw instanceof Uint8Array ? new TextDecoder().decode(raw) : raw,
    ]);
  };
  const refuse = (error: unknown): never => {
    throw redactor.error(error);
  };
  // A `Response` is read asynchronously; reading its body may fail too.
  const settleSync = (result: ApiResult | Promise<ApiResult>) =>
    result instanceof Promise ? result.catch(refuse) : result;
  const send = (
    request: ApiRequest,
    operation: CompactOperation | undefined,
    pathParams: Record<string, string>,
    signal: AbortSignal,
  ): ApiResult | Promise<ApiResult> => {
    let reply: ReturnType<ApiRequestHandler>;
    try {
      reply = options.handler(request, {
        operation,
        pathParams,
        signal,
        mcp: options.mcp,
        responses,
      });
    } catch (error) {
      return refuse(error);
    }
    // Awaited only when it is a promise (or any thenable): a plain answer stays synchronous.
    const shape = finishFor(operation, signal);
    return typeof (reply as { then?: unknown } | null)?.then === "function"
      ? Promise.resolve(reply).then(shape).catch(refuse)
      : settleSync(shape(reply));
  };
  const approved = async (
    request: ApiRequest,
    operation: CompactOperation | undefined,
    pathParams: Record<string, string>,
    signal: AbortSignal,
  ): Promise<ApiResult> => {
    const decision = await options.approve!(request, operation);
    if (decision.kind === "replay") return decision.result;
    // The approved object itself is sent: nothing can change between the prompt and the send.
    let result: ApiResult;
    try {
      result = await send(request, operation, pathParams, signal);
    } catch (error) {
      decision.record({ error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
    decision.record({ result });
    return result;
  };
  return (input: unknown, signal: AbortSignal): ApiResult | Promise<ApiResult> => {
    const request = normalizeApiRequest(input);
    let operation: CompactOperation | undefined;
    let pathParams: Record<string, string> = {};
    if (options.validate) {
      const checked = validateRequest(options.spec, request);
      if (!checked.ok)
        throw new RequestRefusedError(`${endSentence(checked.message)} Nothing was sent.`);
      operation = checked.operation;
      pathParams = checked.pathParams;
    } else {
      const match = options.spec.matchOperation(request.method, request.path);
      if (match.kind === "found") {
        operation = match.operation;
        pathParams = match.params;
      }
    }
    if (request.headers) {
      const partial = partialContentRefusal(request.headers, options.spec, operation);
      if (partial) throw new RequestRefusedError(`codemode.request(): ${partial}`);
    }
    const override = methodOverrideRefusal(request, options.spec, operation);
    if (override) throw new RequestRefusedError(`codemode.request(): ${override}`);
    // What the program sends goes through the same search as what it returns (issue #41): the
    // host adds the credential itself, so a request the program built never needs it, and one
    // that holds it (pieced together from answers split across responses, in any spelling the
    // redaction reads, in the path, query, headers or body, whole or as an array of its
    // characters) would leave it with an API that may keep or show what it is sent.
    const go = () =>
      options.approve !== undefined && options.needsApproval?.(request, operation) === true
        ? approved(request, operation, pathParams, signal)
        : send(request, operation, pathParams, signal);
    // Raw bytes are searched as bytes too: the wire reads them as UTF-8, where the credential
    // in UTF-16 (a form an API may store text in) is letters between NULs no text search reads.
    // So is raw text with a NUL in it: sent as UTF-8, "t\0o\0k\0…" is that same UTF-16.
    const raw = rawBytesOf(request.rawBody);
    const goAfterBytes = (): ApiResult | Promise<ApiResult> => {
      if (raw === undefined) return go();
      const searched = check.bytes(raw, "codemode.request()", signal);
      if (!(searched instanceof Promise)) {
        if (changed(searched, raw)) throw new RequestRefusedError(CREDENTIAL_IN_REQUEST);
        return go();
      }
      return searched.then((clean) => {
        if (changed(clean, raw)) throw new RequestRefusedError(CREDENTIAL_IN_REQUEST);
        return go();
      });
    };
    const wire = wireOf(request);
    if (wire === undefined) return goAfterBytes();
    const searched = check.text(wire, "codemode.request()", signal);
    if (typeof searched === "string") {
      if (searched !== wire) throw new RequestRefusedError(CREDENTIAL_IN_REQUEST);
      return goAfterBytes();
    }
    // A large request: searched in slices, sent (or refused) once the search is done.
    return searched.then((clean) => {
      if (clean !== wire) throw new RequestRefusedError(CREDENTIAL_IN_REQUEST);
      return goAfterBytes();
    });
  };
}

/** The bytes a raw body is sent as, when they need a search of their own (see its caller). */
function rawBytesOf(raw: unknown): Uint8Array | undefined {
  if (raw instanceof Uint8Array) return raw;
  return typeof raw === "string" && raw.includes("\0") ? new TextEncoder().encode(raw) : undefined;
}

/** Whether the byte search changed `bytes` (it answers the same array, or equal bytes, when clean). */
function changed(clean: Uint8Array, bytes: Uint8Array): boolean {
  if (clean === bytes) return false;
  if (clean.byteLength !== bytes.byteLength) return true;
  for (let i = 0; i < bytes.byteLength; i++) if (clean[i] !== bytes[i]) return true;
  return false;
}

/** The refusal of a request that holds the credential (see `wireOf`). */
const CREDENTIAL_IN_REQUEST =
  "codemode.request() was not sent: the request holds the credential (in its path, query, headers or body, in some spelling). Nothing was sent; the host adds the credential itself, so send the API only the data it needs.";

/** `text` ending as a sentence: a validation list ends with a problem, not with a period. */
function endSentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
