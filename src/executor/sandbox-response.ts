/**
 * Turns what the sandbox's `run()` returned into the run's outcome, trusting none of it: a
 * program can tamper with the harness that builds the response (its prototypes, its globals),
 * so the response's shape is checked field by field, the result's size is checked against
 * `maxResultBytes` by length before anything is decoded and its nesting before it is parsed
 * (wire-nesting.ts), error texts are cut to a bounded size, and console lines go through the
 * host bridge's budget like the piggybacked ones.
 */
import { decodeValue } from "../../sandbox/codec-decode";
import type { SandboxError, SandboxResponse } from "../../sandbox/protocol";
import { capText, utf8Bytes } from "../../sandbox/truncate";
import { userErrorPosition, type MappableCode } from "./error-position";
import { flatCopy } from "./flat-copy";
import type { HostBridge } from "./host-bridge";
import type { ExecutionError, ExecutionOutcome } from "./types";
import { MAX_WIRE_NESTING, nestedDeeperThan } from "./wire-nesting";
import { isRecord } from "../is-record";

/** Longest error name and message an outcome carries (the harness cuts to these too). */
export const MAX_ERROR_NAME = 100;
export const MAX_ERROR_MESSAGE = 8_000;
/** Longest stack tail read to locate the failing line. */
const MAX_STACK = 8_000;

/** The outcome fields the executor already knows. */
export type OutcomeBase = Omit<ExecutionOutcome, "status">;

/**
 * Builds the outcome of a run that returned `value`.
 * @param value - the sandbox's response, as received (anything)
 * @param bridge - the run's host bridge (limit hits, console budget)
 * @param code - the prepared code, to map error positions
 * @param base - calls, duration and the other fields known on the host
 * @param maxResultBytes - the run's result limit
 */
export function responseToOutcome(
  value: unknown,
  bridge: HostBridge,
  code: MappableCode,
  base: OutcomeBase,
  maxResultBytes: number,
): ExecutionOutcome {
  const problem = malformed(value);
  if (problem !== undefined) {
    if (isRecord(value) && Array.isArray(value["logs"])) bridge.acceptLogs(value["logs"]);
    return {
      ...base,
      logs: bridge.logs,
      droppedLogs: bridge.droppedLogs(),
      status: "error",
      error: {
        name: "SandboxError",
        message: `The sandbox returned a malformed response (${problem}); its harness was tampered with. Do not modify built-in objects the runtime relies on.`,
      },
    };
  }
  const response = value as SandboxResponse;
  bridge.acceptLogs(response.logs);
  const outcome: ExecutionOutcome = {
    ...base,
    logs: bridge.logs,
    droppedLogs: response.droppedLogs + bridge.droppedLogs(),
    truncated: response.truncated,
    resultBytes: response.resultBytes,
    operations: response.operations,
    status: "ok",
  };
  const error = response.error && boundedError(response.error, code);
  if (response.result !== undefined) {
    const text = response.result;
    // Bytes ≥ UTF-16 units: a longer text is over without being read.
    const chars = text.length;
    if (
      chars * 3 > maxResultBytes &&
      (chars > maxResultBytes || utf8Bytes(text) > maxResultBytes)
    ) {
      outcome.status = "limit";
      outcome.error = {
        name: "LimitError",
        message: `The result is over the maxResultBytes limit of ${maxResultBytes} bytes and was refused (the sandbox's own truncation was defeated, e.g. by replacing built-in methods). Return less data, and leave built-in objects alone.`,
      };
      return outcome;
    }
    if (nestedDeeperThan(text)) {
      outcome.status = "error";
      outcome.error = {
        name: "SandboxError",
        message: `The sandbox returned a result nested deeper than ${MAX_WIRE_NESTING} levels, which its encoder never sends; its harness was tampered with. Do not modify built-in objects the runtime relies on.`,
      };
      return outcome;
    }
    try {
      outcome.result = decodeValue(text);
    } catch {
      outcome.status = "error";
      outcome.error = {
        name: "SandboxError",
        message:
          "The sandbox returned a result that is not valid JSON; its harness was tampered with. Do not modify built-in objects the runtime relies on.",
      };
      return outcome;
    }
  }
  if (response.budgetExhausted || bridge.limitHit) {
    const message =
      response.budgetExhausted && error?.name === "LimitError"
        ? error.message
        : (bridge.limitHit ?? error?.message ?? "A limit was exceeded.");
    outcome.status = "limit";
    outcome.error = { ...error, name: "LimitError", message };
    return outcome;
  }
  if (error) {
    outcome.status = "error";
    outcome.error = error;
  }
  return outcome;
}

/** The error cut to bounded texts, with its position in the submitted code when known. */
function boundedError(error: SandboxError, code: MappableCode): ExecutionError {
  const name = capText(error.name, MAX_ERROR_NAME);
  const message = capText(error.message, MAX_ERROR_MESSAGE);
  const stack =
    error.stack === undefined || error.stack.length <= MAX_STACK
      ? error.stack
      : error.stack.slice(error.stack.length - MAX_STACK);
  return {
    name: name === error.name ? name : flatCopy(name),
    message: message === error.message ? message : flatCopy(message),
    ...userErrorPosition(stack, code),
  };
}

/** What is wrong with a response's shape, or `undefined` when it is well-formed. */
function malformed(value: unknown): string | undefined {
  if (!isRecord(value) || Array.isArray(value)) return "not an object";
  const { result, error, truncated, resultBytes, logs, droppedLogs, operations } = value;
  if (result !== undefined && typeof result !== "string") return "result is not text";
  if (error !== undefined) {
    if (!isRecord(error)) return "error is not an object";
    if (typeof error["name"] !== "string" || typeof error["message"] !== "string")
      return "error name or message is not text";
    if (error["stack"] !== undefined && typeof error["stack"] !== "string")
      return "error stack is not text";
  }
  if (typeof truncated !== "boolean") return "truncated is not a boolean";
  if (typeof value["budgetExhausted"] !== "boolean") return "budgetExhausted is not a boolean";
  if (!Array.isArray(logs)) return "logs is not a list";
  for (const [field, count] of [
    ["resultBytes", resultBytes],
    ["droppedLogs", droppedLogs],
    ["operations", operations],
  ] as const) {
    if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0)
      return `${field} is not a count`;
  }
  return undefined;
}
