/**
 * A `fetch` that follows redirects only within the origin it was sent to. `fetch` follows every
 * redirect, and on one to another origin drops only `Authorization`: a credential in any other
 * header (`UPSTREAM_MCP_AUTH_HEADER=X-API-Key`, a cookie) went on to wherever the upstream MCP
 * server redirected, with the request's body (measured in workerd: a 307 from the upstream to
 * another host got `X-API-Key`). The API's requests already never follow a redirect
 * (app/api-request-handler.ts: `redirect: "manual"`, a 3xx is data for the program); the
 * upstream's client needs a redirect followed (`/mcp` → `/mcp/`), so it is followed here when it
 * stays on the origin (same scheme, host and port), at most {@link MAX_REDIRECTS} times, and one
 * to another origin fails with a `NetworkError` naming that origin, nothing sent there.
 *
 * Does not do: follow a redirect of a request whose body cannot be sent again (a stream, or a
 * `Request` given whole): its 3xx answer is returned as it is.
 */
import { SandboxError } from "../../errors";

/** Redirects followed for one request, at most. */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Wraps `inner` so redirects are followed only within the first URL's origin.
 * @param inner - the fetch that sends (e.g. `namingFetch`)
 * @param target - whom the requests are for, named in the refusal (request/network-error.ts's
 *   `NetworkTarget`: the upstream's room does not import the request pipeline's)
 */
export function sameOriginRedirects(
  inner: typeof fetch,
  target: { what: string; setting?: string },
): typeof fetch {
  return async (input, init) => {
    // A caller that asked for the redirect itself gets it as it asked.
    if (init?.redirect === "manual" || init?.redirect === "error") return inner(input, init);
    const origin = new URL(input instanceof Request ? input.url : String(input)).origin;
    let url = new URL(input instanceof Request ? input.url : String(input));
    let current: Parameters<typeof fetch>[0] = input;
    let options: RequestInit = { ...init, redirect: "manual" };
    for (let hop = 0; ; hop++) {
      const response = await inner(current, options);
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null) return response;
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return response;
      }
      if (next.origin !== origin) {
        await response.body?.cancel();
        const port = next.port || (next.protocol === "https:" ? "443" : "80");
        throw new SandboxError(
          "NetworkError",
          `${target.what} redirected the request (${response.status}) to another origin, ${next.protocol}//${next.hostname}:${port}; it was not sent there, so its credential stays with ${target.setting ?? "the address configured"}. Set ${target.setting ?? "the address"} to the address it redirects to if that is right.`,
        );
      }
      if (hop >= MAX_REDIRECTS || input instanceof Request || !resendable(options.body))
        return response;
      await response.body?.cancel();
      const method = (options.method ?? "GET").toUpperCase();
      // As fetch does: a 303 (and a 301/302 of a POST) is followed with a GET and no body.
      if (
        (response.status === 303 && method !== "HEAD") ||
        ((response.status === 301 || response.status === 302) && method === "POST")
      )
        options = { ...options, method: "GET", body: null };
      url = next;
      current = next;
    }
  };
}

/** Whether a body can be sent again as it is (not a stream read by the first send). */
function resendable(body: RequestInit["body"]): boolean {
  return (
    body === undefined ||
    body === null ||
    typeof body === "string" ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof URLSearchParams
  );
}
