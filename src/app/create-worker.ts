/**
 * The Worker's `fetch` export over the app router: plain, or behind
 * `@cloudflare/workers-oauth-provider` when `OAUTH=on` (see oauth/oauth-worker.ts).
 *
 * Security defaults: on the local server (the `LOCAL_CLUSTER_SECRET` binding set by its
 * launcher), a request that does not carry the cluster secret is refused before anything else,
 * and the secret is removed before the app sees the request (localOnly below). Then every
 * request, on every route, must name an allowed host (`ALLOWED_HOSTNAMES`, see allowed-hosts.ts)
 * before anything else runs.
 */
import {
  CLUSTER_SECRET_HEADER,
  clusterSecretOf,
  isClusterSecret,
} from "../executor/runners/cluster-secret";
import { FORGET_RUNNER_PATH, SUPERVISOR_SECRET_HEADER } from "../executor/runners/stale-slot";
import { urlParts } from "../mcp/common/request-url";
import type { App } from "./app";
import { DEFAULT_ALLOWED_HOSTNAMES, refuseUnknownHost } from "./config/allowed-hosts";
import { renderHttpError, wantsHtml } from "./errors/http-error";
import { declaredBodyBytes, hostCollection, isLightRequest } from "./host-collection";
import { forgetRunner } from "./sandbox-loader";
import { STABLE_CODE_PATH, stableCodeAnswer } from "../executor/shared-worker/stable-code-answer";

/**
 * On `/health` answers where the host collects its garbage itself (host-collection.ts): how
 * many full collections it has run (the e2e soak reads it on the runtime's own port).
 */
export const COLLECTIONS_HEADER = "x-host-collections";

/**
 * Builds the Worker's exported handler.
 * @param app - the router from `createApp`
 */
export function createWorker(app: App): ExportedHandler<Cloudflare.Env> {
  const collection = hostCollection();
  const handle = async (
    request: Request,
    env: Cloudflare.Env,
    ctx: ExecutionContext,
  ): Promise<Response> => {
    const checked = app.config(env);
    // A broken configuration still refuses unknown hosts (with the defaults); /health then
    // names the problem to anyone reaching the server under an allowed name.
    try {
      refuseUnknownHost(
        request,
        checked.ok ? checked.config.allowedHostnames : DEFAULT_ALLOWED_HOSTNAMES,
      );
    } catch (error) {
      // Before the router: rendered by the same one renderer its routes use.
      return renderHttpError(error, wantsHtml(request));
    }
    if (checked.ok && checked.config.oauth) {
      // Loaded only when OAuth is on: the provider module prints a start-up notice on load.
      const { oauthFetch } = await import("./oauth/oauth-worker");
      return oauthFetch(app, request, env, ctx);
    }
    return app.route(request, env);
  };
  return {
    async fetch(given, env, ctx) {
      const request = localOnly(given, env);
      if (!request) return refusedLocal();
      // The supervisor's word about a runner it keeps (sandbox-loader.ts): only on the local
      // server, and only with the secret in the supervisor's own header (a client's request
      // through the front carries the cluster secret too); deployed, no such route exists.
      if (
        request.method === "POST" &&
        urlParts(request.url).pathname === FORGET_RUNNER_PATH &&
        fromSupervisor(request, env)
      )
        return forgetRunner(request.url);
      // The engine's code for the supervisor to warm the runners it starts with (stable-code-answer.ts).
      if (
        request.method === "GET" &&
        urlParts(request.url).pathname === STABLE_CODE_PATH &&
        fromSupervisor(request, env)
      ) {
        const checked = app.config(env);
        return stableCodeAnswer(checked.ok ? checked.config : undefined);
      }
      // A `/health` request is a probe, not work (host-collection.ts: the quiet collection).
      const probe = collection.enabled && urlParts(request.url).pathname === "/health";
      try {
        const response = await handle(request, env, ctx);
        if (!probe) return response;
        // A copy: an answer's headers may be immutable.
        const counted = new Response(response.body, response);
        counted.headers.set(COLLECTIONS_HEADER, String(collection.collections));
        return counted;
      } finally {
        // A ping or a probe allocates far less than a run: it counts as a share of a request.
        const length = collection.enabled ? request.headers.get("content-length") : null;
        const light = collection.enabled && isLightRequest(probe, length);
        // Large bodies count by their bytes too: a client picks their size (issue #40).
        collection.afterRequest(ctx, probe, light, declaredBodyBytes(length));
      }
    },
  };
}

/**
 * The request as the app should see it: unchanged when no cluster secret is set (deployed: the
 * edge sets `CF-Connecting-IP`); on the local server, a copy without the secret's header when it
 * carries the secret, else null (refused). The host runtime's ports (the direct socket the front
 * sends to, Miniflare's own) are on 127.0.0.1, where every process on the machine reaches them;
 * only the front and the supervisor send the secret, and the front sets `CF-Connecting-IP` to the
 * client's real address (cli/local-server/front/exchange.mjs), so the address the OAuth attempt
 * limiter counts by (oauth/attempt-limiter.ts) is trusted only from the front.
 * @param request - the incoming request
 * @param env - the Worker's bindings
 */
export function localOnly(request: Request, env: unknown): Request | null {
  const secret = clusterSecretOf(env);
  if (secret === undefined) return request;
  if (!isClusterSecret(request.headers.get(CLUSTER_SECRET_HEADER), secret)) return null;
  const copy = new Request(request);
  copy.headers.delete(CLUSTER_SECRET_HEADER);
  return copy;
}

/**
 * Whether a request comes from the local server's supervisor: it carries the cluster secret in
 * {@link SUPERVISOR_SECRET_HEADER}, which the front never adds (stale-slot.ts says why). False
 * where no secret is set (deployed).
 * @param request - the incoming request
 * @param env - the Worker's bindings
 */
export function fromSupervisor(request: Request, env: unknown): boolean {
  const secret = clusterSecretOf(env);
  return (
    secret !== undefined && isClusterSecret(request.headers.get(SUPERVISOR_SECRET_HEADER), secret)
  );
}

/** The answer to a request on an internal port of the local server that lacks the secret. */
function refusedLocal(): Response {
  return new Response(
    "This is an internal port of the local server: only the server's own processes may use it.\nFix: send requests to the server's public port (the address `npm start` or `code-mode-mcp serve` printed: http://127.0.0.1:8787 by default).\n",
    { status: 403, headers: { "content-type": "text/plain; charset=utf-8" } },
  );
}
