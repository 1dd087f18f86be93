/**
 * What a program is told when the API cannot be reached. workerd's `fetch` rejects with
 * `Network connection lost.` for a refused connection and with `internal error; reference = …`
 * for an unknown host, naming neither the host nor the reason: a program (and the person reading
 * its error) could not tell a wrong `API_BASE_URL` from a flaky API. So after a failed fetch the
 * host opens a plain TCP connection to the same host and port (at most {@link PROBE_MS}): if that
 * fails too, nothing accepted a connection and nothing was sent; if it opens, the connection was
 * lost after it was made, and the request may have reached the API.
 *
 * Exported (`namingFetch`) so a library user's request callback names network failures as the
 * product's does: `request: (r) => send(url, init)` with `const send = namingFetch({ what: "the API" })`.
 *
 * Security defaults: the message names the host and port only (never the path, query or user
 * info of the URL, where a credential could sit) and is redacted again with the response
 * secrets by the server before the sandbox sees it.
 */
import { connect } from "cloudflare:sockets";
import { SandboxError } from "../../errors";

/** How long the reachability probe may take. */
export const PROBE_MS = 2_000;

/** Whom a failed request was for, to name it and its setting in the fix. */
export interface NetworkTarget {
  /** e.g. "the API", "the upstream MCP server" */
  what: string;
  /** The setting that holds its address, e.g. `API_BASE_URL` (default: "its address"). */
  setting?: string;
}

/** The API of `/mcp` (`API_BASE_URL`): the default target. */
const API_TARGET: NetworkTarget = { what: "the API", setting: "API_BASE_URL" };

/**
 * An error naming the host and the reason a request to `url` failed.
 * @param url - the URL that was fetched
 * @param cause - what `fetch` rejected with
 * @param target - whom the request was for (default: the API at `API_BASE_URL`)
 */
export async function networkError(
  url: URL,
  cause: unknown,
  target: NetworkTarget = API_TARGET,
): Promise<Error> {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const address = `${url.hostname}:${port}`;
  const detail = cause instanceof Error ? cause.message : String(cause);
  const reached = await accepts(url.hostname, Number(port));
  return new SandboxError(
    "NetworkError",
    reached
      ? `connection to ${address} lost before an answer came (${detail}); the request may have reached ${target.what}`
      : `connection refused to ${address} (or the host is unknown or unreachable); nothing was sent. Check that ${target.what} is running and ${target.setting ?? "its address"} is right.`,
  );
}

/**
 * A `fetch` whose network failures are {@link networkError}s naming the host, the reason and
 * `target`'s setting (a cancelled request keeps its own reason).
 * @param target - whom the requests are for
 */
export function namingFetch(target: NetworkTarget): typeof fetch {
  return async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (error) {
      if (init?.signal?.aborted || (input instanceof Request && input.signal.aborted)) throw error;
      throw await networkError(
        new URL(input instanceof Request ? input.url : String(input)),
        error,
        target,
      );
    }
  };
}

/** Whether a TCP connection to the address opens within {@link PROBE_MS}. */
async function accepts(hostname: string, port: number): Promise<boolean> {
  let socket: ReturnType<typeof connect> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    socket = connect({ hostname, port });
    // A failed connection also rejects `closed`: handled, so workerd logs no uncaught rejection.
    socket.closed.catch(() => {});
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(resolve, PROBE_MS, false)));
    return await Promise.race([socket.opened.then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    socket?.close().catch(() => {});
  }
}
