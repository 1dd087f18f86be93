/**
 * The per-operation switch that withholds response bodies (`withholdResponseBodies`, the
 * product's `WITHHOLD_RESPONSE_BODIES`): for operations known to reflect the request, whose
 * answers may carry the credential in a form no reading of one body can undo (split across
 * responses, XOR with a known key, compressed inside the body), the program gets the status and
 * the (redacted) headers and a note instead of the body. Docs: docs/security.md, "Honest limits".
 */
import { CodeModeError } from "../../errors";
import type { OpenApiSpec } from "../../openapi/openapi-spec";
import { asResponseInit, type ApiResponseInit } from "./api-response";

/**
 * The operation ids whose bodies are withheld, checked against the spec: an id the spec does
 * not have is a typo that would silently withhold nothing, so it is refused at start.
 * @param spec - the served spec
 * @param ids - operation ids (undefined or empty: none)
 * @param where - the option or setting that named them, for the message
 * @throws CodeModeError `invalid_option` naming the unknown ids
 */
export function withheldOperations(
  spec: OpenApiSpec,
  ids: readonly string[] | undefined,
  where: string,
): ReadonlySet<string> {
  const wanted = new Set((ids ?? []).map((id) => String(id).trim()).filter((id) => id !== ""));
  const unknown = [...wanted].filter((id) => spec.operationById(id) === undefined);
  if (unknown.length > 0)
    throw new CodeModeError(
      "invalid_option",
      `${where} names ${unknown.map((id) => `"${id}"`).join(", ")}, which the spec has no operation with (as operationId). Use the operation ids the spec declares (search codemode.spec() or the spec file for "operationId").`,
    );
  return wanted;
}

/**
 * A callback's answer with its body replaced by a note saying why (the body of a `Response` is
 * cancelled unread). Status and headers stay; the caller redacts them as any answer.
 * @param response - what the request callback returned
 * @param operationId - the operation it answered
 */
export function withoutBody(response: unknown, operationId: string): ApiResponseInit {
  const note = `[response body withheld: operation "${operationId}" is set to withhold its response bodies (withholdResponseBodies, WITHHOLD_RESPONSE_BODIES) because it reflects the request, credential included]`;
  if (response instanceof Response) {
    void response.body?.cancel().catch(() => {});
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      headers[key] = value;
    });
    return { status: response.status, headers, body: note };
  }
  return { ...asResponseInit(response), body: note };
}
