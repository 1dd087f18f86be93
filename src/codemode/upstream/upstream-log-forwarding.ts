/**
 * Forwarding of a per-run upstream connection's log messages to the outer client, redacted of
 * the configured secrets (the `code` tool's logging; see code-mcp-server.ts).
 */
import type { LoggingLevel, ServerContext } from "@modelcontextprotocol/server";
import type { Redactor } from "../redaction/redaction";
import type { UpstreamSession } from "./upstream-connection";

/**
 * Forwards the upstream's logging notifications of a per-run connection to the outer client.
 * @param session - the per-run upstream session
 * @param ctx - the outer request's context
 * @param level - the level the client asked for
 * @param redactor - the configured secrets
 */
export async function forwardLogs(
  session: UpstreamSession,
  ctx: ServerContext,
  level: LoggingLevel,
  redactor: Redactor,
): Promise<void> {
  session.client.setNotificationHandler("notifications/message", (notification) => {
    const { level: messageLevel, data, logger } = notification.params;
    const source = logger === undefined ? undefined : redactor.text(logger);
    void ctx.mcpReq.log(messageLevel, redactor.data(data), source).catch(() => {});
  });
  // A 2025-era upstream sends log messages only after logging/setLevel (once per session: an
  // adopted session keeps the level set when it began).
  if (session.client.getProtocolEra() === "legacy" && !session.reused)
    await session.client.setLoggingLevel(level).catch(() => {});
}
