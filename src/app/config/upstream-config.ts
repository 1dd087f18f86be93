/**
 * Reads which MCP server(s) `/mcp/code` wraps:
 *
 * - `UPSTREAM_MCP_URL=https://mcp.example.com/mcp` — one server;
 * - `UPSTREAM_MCP_URL=github=https://…/mcp,jira=https://…/mcp` — several by name (tool names are
 *   then prefixed: `github_create_issue`);
 * - `UPSTREAM_MCP_AUTH` (secret): one header value for every server, or a JSON object of values
 *   by server name (`{"github":"Bearer …"}`); `UPSTREAM_MCP_AUTH_HEADER` names the header.
 *
 * Security defaults: problems name the setting and the fix, never the auth value.
 */

import { MIN_SECRET_LENGTH } from "../../codemode/redaction/redaction";

/** One configured upstream MCP server. */
export interface UpstreamServer {
  /** Its name (`""` for a single unnamed server). */
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** A configuration problem, as the config check reports it. */
export interface UpstreamProblem {
  setting: "UPSTREAM_MCP_URL" | "UPSTREAM_MCP_AUTH";
  message: string;
  fix: string;
}

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Parses the upstream settings.
 * @param urlSetting - `UPSTREAM_MCP_URL` (trimmed, defined)
 * @param auth - `UPSTREAM_MCP_AUTH`, if set
 * @param authHeader - the header the auth value goes in
 * @returns the servers, or the problems found
 */
export function parseUpstreams(
  urlSetting: string,
  auth: string | undefined,
  authHeader: string,
): { servers: UpstreamServer[]; problems: UpstreamProblem[] } {
  const problems: UpstreamProblem[] = [];
  const entries = urlSetting
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const named = entries.length > 1 || /^[A-Za-z][A-Za-z0-9_]*=/.test(entries[0] ?? "");
  const servers: UpstreamServer[] = [];
  for (const entry of entries) {
    const eq = named ? entry.indexOf("=") : -1;
    const name = named ? entry.slice(0, Math.max(0, eq)) : "";
    const raw = named ? entry.slice(eq + 1) : entry;
    if (named && (eq <= 0 || !NAME.test(name))) {
      problems.push({
        setting: "UPSTREAM_MCP_URL",
        message: `UPSTREAM_MCP_URL entry "${entry}" needs a name: several servers are written name=url (names: letters, digits, _).`,
        fix: "Write UPSTREAM_MCP_URL=github=https://…/mcp,jira=https://…/mcp, or give a single URL.",
      });
      continue;
    }
    if (servers.some((s) => s.name === name)) {
      problems.push({
        setting: "UPSTREAM_MCP_URL",
        message: `UPSTREAM_MCP_URL names "${name}" twice.`,
        fix: "Give every server its own name.",
      });
      continue;
    }
    let url: URL | undefined;
    try {
      url = new URL(raw);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      problems.push({
        setting: "UPSTREAM_MCP_URL",
        message: `UPSTREAM_MCP_URL must be an http(s) URL${name ? ` for "${name}"` : ""}; got "${raw}".`,
        fix: "Set UPSTREAM_MCP_URL to the server's full Streamable HTTP URL, such as https://mcp.example.com/mcp.",
      });
      continue;
    }
    servers.push({ name, url: url.href, headers: {} });
  }
  if (auth !== undefined && servers.length > 0) {
    const byName = auth.startsWith("{") ? parseAuthObject(auth, problems) : undefined;
    for (const server of servers) {
      const value = byName ? byName[server.name] : auth;
      if (value) server.headers[authHeader] = value;
    }
    for (const name of Object.keys(byName ?? {})) {
      if (!servers.some((s) => s.name === name))
        problems.push({
          setting: "UPSTREAM_MCP_AUTH",
          message: `UPSTREAM_MCP_AUTH has a value for "${name}", which UPSTREAM_MCP_URL does not name.`,
          fix: "Use the server names of UPSTREAM_MCP_URL as the keys.",
        });
    }
  }
  return { servers, problems };
}

function parseAuthObject(
  text: string,
  problems: UpstreamProblem[],
): Record<string, string> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      parsed &&
      typeof parsed === "object" &&
      !Array.isArray(parsed) &&
      Object.values(parsed).every((v) => typeof v === "string")
    )
      return parsed as Record<string, string>;
  } catch {
    // reported below (without the value: it is a secret)
  }
  problems.push({
    setting: "UPSTREAM_MCP_AUTH",
    message: "UPSTREAM_MCP_AUTH starts with { but is not a JSON object of strings by server name.",
    fix: 'Write UPSTREAM_MCP_AUTH={"github":"Bearer …"} or a single header value for every server.',
  });
  return undefined;
}

/**
 * One problem per upstream whose credential (its bare token after the scheme) is too short (see `MIN_SECRET_LENGTH`).
 * @param servers - from {@link parseUpstreams}
 */
export function shortUpstreamCredentials(servers: readonly UpstreamServer[]): UpstreamProblem[] {
  return servers.flatMap((server) =>
    Object.values(server.headers).some((header) => {
      const bare = header.trim().replace(/^\S+\s+/, "");
      return bare.length < MIN_SECRET_LENGTH;
    })
      ? [
          {
            setting: "UPSTREAM_MCP_AUTH",
            message: `UPSTREAM_MCP_AUTH${server.name ? ` for "${server.name}"` : ""} has a token shorter than ${MIN_SECRET_LENGTH} characters: too short to redact safely from the upstream's results (it would match ordinary text and JSON) and too short to be a real credential.`,
            fix: `Use the server's full credential, e.g. UPSTREAM_MCP_AUTH="Bearer <token of at least ${MIN_SECRET_LENGTH} characters>".`,
          },
        ]
      : [],
  );
}
