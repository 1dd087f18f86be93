/**
 * The upstream sessions of one `code` run: one per upstream the run actually calls, opened on
 * first use (with the upstream's log messages forwarded to the client when it asked for them),
 * opened again once when the upstream forgot an adopted session, and all released when the run
 * ends.
 */
import type { LoggingLevel, ServerContext } from "@modelcontextprotocol/server";
import type { Redactor } from "../redaction/redaction";
import type { Upstream } from "./upstream-cache";
import { isSessionGone, type UpstreamSession } from "./upstream-connection";
import { forwardLogs } from "./upstream-log-forwarding";
import type { CallerScopes } from "./upstream-set";

/** The sessions of one run, from {@link runSessions}. */
export interface RunSessions {
  /**
   * Sends through the upstream's session for this run: on a reused session the upstream had
   * forgotten before it saw the call, the handshake is made once more and the call sent again.
   * @param upstream - the upstream to call
   * @param send - the call, on a session
   */
  call<T>(upstream: Upstream, send: (session: UpstreamSession) => Promise<T>): Promise<T>;
  /** Gives every session back (to the upstream's cache, or closed); never throws. */
  release(): Promise<void>;
}

/**
 * The sessions of one run.
 * @param scopes - the caller's scope per upstream
 * @param ctx - the outer request, where forwarded log messages go
 * @param logLevel - the level the client asked for, or undefined for no forwarding
 * @param redactor - removes the caller's secrets from forwarded log messages
 */
export function runSessions(
  scopes: CallerScopes,
  ctx: ServerContext,
  logLevel: LoggingLevel | undefined,
  redactor: Redactor,
): RunSessions {
  const sessions = new Map<Upstream, Promise<UpstreamSession>>();
  const retired: UpstreamSession[] = [];
  const connect = (upstream: Upstream) => {
    let session = sessions.get(upstream);
    if (!session) {
      session = upstream.session(scopes.get(upstream)).then(async (s) => {
        if (!s.shared && logLevel) await forwardLogs(s, ctx, logLevel, redactor);
        return s;
      });
      sessions.set(upstream, session);
    }
    return session;
  };
  return {
    async call(upstream, send) {
      const session = await connect(upstream);
      return send(session).catch(async (error: unknown) => {
        // The upstream forgot the adopted session before it saw this call: handshake once more.
        if (!session.reused || !isSessionGone(error)) throw error;
        upstream.forgetNegotiation(scopes.get(upstream));
        retired.push(session);
        sessions.delete(upstream);
        return send(await connect(upstream));
      });
    },
    async release() {
      await Promise.all([
        ...[...sessions].map(([upstream, session]) =>
          session.then((s) => upstream.release(s)).catch(() => {}),
        ),
        ...retired.map((s) => s.close().catch(() => {})),
      ]);
    },
  };
}
