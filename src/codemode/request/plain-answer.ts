/**
 * A request callback's plain answer (`{ status, headers?, body? }`, not a `Response`), redacted
 * for the sandbox, with a large body searched in slices (issue #40).
 *
 * Why: a plain answer's body is data the host walks with `redactor.data`, one synchronous pass
 * over every string. The forwarded-token path (src/app/api-request-handler.ts) returns such an
 * answer: the API's response, already searched in slices for the caller's token, then searched
 * again here for the configured secrets. Its size is what the API returned, and the API returns
 * what the program asked for (an echo of a few MB of `%25` escapes held the local host's thread,
 * which serves every client, for seconds). So a body past {@link SLICED_BODY} characters is
 * walked by ./sent-data.ts through the run's sliced search: the same copy `redactor.data` makes,
 * the thread given away between slices, one large search at a time per run. A small answer, the
 * common case, is still answered at once (no promise, no microtask hop).
 *
 * Does not do: charge answers to the run's budget of what it sends (./sent-check.ts): the
 * caller passes a check of its own for answers, with no budget (an answer's size is bounded by
 * the callback, not by the program's sends).
 */
import type { Redactor } from "../redaction/redaction";
import { plainResultWith, SLICED_BODY, type ApiResponseInit, type ApiResult } from "./api-response";
import type { SentCheck } from "./sent-check";
import { sentData } from "./sent-data";

/** What a number, a boolean or a key costs in {@link withinSize}'s estimate besides its text. */
const PART_COST = 8;

/**
 * The answer for the sandbox: at once when its body is small, else after a sliced search.
 * @param response - what the host callback returned
 * @param redactor - the configured secrets
 * @param check - the run's sliced search for answers
 * @param signal - the run's: a sliced search stops at its next pause once it is aborted
 */
export function plainAnswer(
  response: ApiResponseInit,
  redactor: Redactor,
  check: SentCheck,
  signal?: AbortSignal,
): ApiResult | Promise<ApiResult> {
  const body = response.body;
  if (body === undefined || !redactor.active || withinSize(body, SLICED_BODY))
    return plainResultWith(response, redactor, body === undefined ? null : redactor.data(body));
  return sentData(body, redactor, check, "the API's answer", signal).then((clean) =>
    plainResultWith(response, redactor, clean),
  );
}

/**
 * Whether `value` holds fewer than `limit` characters and bytes (keys and numbers counted too).
 * Stops as soon as the count passes `limit`, so it costs at most about `limit` steps: the
 * estimate never becomes the long walk it is there to avoid.
 * @param value - an answer's body
 * @param limit - characters
 */
export function withinSize(value: unknown, limit: number): boolean {
  let size = 0;
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") size += item.length;
    else if (typeof item !== "object" || item === null) size += PART_COST;
    else if (!seen.has(item)) {
      seen.add(item);
      if (ArrayBuffer.isView(item) || item instanceof ArrayBuffer) size += item.byteLength;
      else if (Array.isArray(item)) {
        // A member counts one at least: a million-member array is not copied to the stack.
        size += PART_COST + item.length;
        if (size >= limit) return false;
        for (const member of item) stack.push(member);
      } else if (item instanceof Map || item instanceof Set || item instanceof Error) return false;
      else
        for (const key of Object.keys(item)) {
          size += key.length + PART_COST;
          if (size >= limit) return false;
          stack.push((item as Record<string, unknown>)[key]);
        }
    }
    if (size >= limit) return false;
  }
  return true;
}
