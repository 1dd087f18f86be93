/**
 * The authenticated identity of the request being served, readable from anywhere inside a
 * tool, prompt or resource handler through `getMcpAuthContext()`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { isRecord } from "../../is-record";

/** What `getMcpAuthContext()` returns inside a handler. */
export interface McpAuthContext {
  /**
   * The application props the auth layer attached to the verified token (for
   * `@cloudflare/workers-oauth-provider`: the props passed to `completeAuthorization`).
   * May hold upstream credentials: never log them or put them in a tool result.
   */
  props: Record<string, unknown>;
}

const storage = new AsyncLocalStorage<McpAuthContext>();

/**
 * Returns the auth context of the request currently being served, or `undefined` outside a
 * request or when the request carried no verified identity.
 *
 * Works in every continuation of a handler, including code that runs while an SSE response
 * body is still streaming after the `Response` object was returned.
 *
 * @returns `{ props }` for an authenticated request, otherwise `undefined`
 */
export function getMcpAuthContext(): McpAuthContext | undefined {
  return storage.getStore();
}

/**
 * Runs `fn` with `context` as the current auth context (see {@link getMcpAuthContext}).
 *
 * @param context - the identity to expose, or `undefined` to run `fn` unchanged
 * @param fn - the work to run
 * @returns what `fn` returns
 */
export function runWithAuthContext<T>(context: McpAuthContext | undefined, fn: () => T): T {
  return context === undefined ? fn() : storage.run(context, fn);
}

/**
 * Maps the verified identity `@cloudflare/workers-oauth-provider` hands an API handler to the
 * SDK's `AuthInfo`. The provider only calls the API handler after it validated the bearer
 * token, and it places the grant's decrypted props on `ctx.props`.
 *
 * `clientId`, `scopes` and `expiresAt` come from the provider's verified token data (`ctx.auth`
 * in workers-oauth-provider 1.2: `{ clientId, scope, expiresAt, … }`) when given, else from the
 * props when the application stored them there; the props themselves ride in `extra.props`.
 *
 * Security defaults: returns `undefined` unless `props` is a non-empty plain object, so an
 * unauthenticated Worker invocation (whose `ctx.props` is `{}`) never looks authenticated.
 *
 * Does not do: token verification. It trusts that an OAuth provider in front already did it;
 * without one, never pass attacker-controlled props here.
 *
 * @param request - the request; its `Authorization: Bearer` value becomes `token`
 * @param props - `ctx.props` from the Worker's execution context
 * @param auth - `ctx.auth`, the provider's verified token data, when it sets one
 * @returns the mapped `AuthInfo`, or `undefined` when there is no verified identity
 */
export function authInfoFromOAuthProps(
  request: Request,
  props: unknown,
  auth?: unknown,
): AuthInfo | undefined {
  if (!isRecord(props) || Object.keys(props).length === 0) return undefined;
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  const verified = isRecord(auth) ? auth : {};
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
  const clientId = [verified.clientId, props.clientId].find((v) => typeof v === "string");
  const expiresAt = [verified.expiresAt, props.expiresAt].find((v) => typeof v === "number");
  return {
    token: bearer?.[1]?.trim() ?? "",
    clientId: (clientId as string | undefined) ?? "",
    scopes: Array.isArray(verified.scope) ? strings(verified.scope) : strings(props.scopes),
    ...(expiresAt !== undefined && { expiresAt: expiresAt as number }),
    extra: { props },
  };
}

/**
 * The auth context for a request: the props carried in `authInfo.extra.props`, if any.
 *
 * @param authInfo - verified auth info for the request
 * @returns the context to expose through {@link getMcpAuthContext}, or `undefined`
 */
export function authContextFrom(authInfo: AuthInfo | undefined): McpAuthContext | undefined {
  const props = authInfo?.extra?.props;
  return isRecord(props) ? { props } : undefined;
}

/**
 * Wraps a response so every read of its body runs inside `context`. Continuations started
 * during the request already inherit the context; this also covers work a stream's consumer
 * triggers later (pull-driven producers).
 *
 * @param response - the response whose body may still be streaming
 * @param context - the auth context to keep current
 * @returns the same response when there is nothing to wrap, otherwise a re-wrapped one
 */
export function withAuthContextBody(
  response: Response,
  context: McpAuthContext | undefined,
): Response {
  if (context === undefined || response.body === null) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) =>
      storage.run(context, async () => {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
        }
      }),
    cancel: (reason) => storage.run(context, () => reader.cancel(reason)),
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
