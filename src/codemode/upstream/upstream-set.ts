/**
 * Several upstream MCP servers behind one `code` tool. Each keeps its own cached tool list and
 * connections (see upstream-cache.ts); the set merges the lists, prefixing every tool name with its
 * upstream's key (`github_create_issue`) when there is more than one, and routes a call back to
 * the upstream and the tool's own name.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { CodeModeError } from "../../errors";
import { Upstream, type UpstreamOptions } from "./upstream-cache";
import { callerScope, type CallerScope } from "./upstream-caller";
import type { CodeUpstream, UpstreamCaller } from "./upstream-connection";

/** The merged tool list and where each tool lives. */
export interface MergedTools {
  tools: Tool[];
  /**
   * Where each tool of {@link MergedTools.tools} lives, at the same index: the upstream serving
   * it and the tool's name there. By position, not by merged name: two upstreams' names can
   * merge into one (`notes` + `admin_purge`, `notes_admin` + `purge`), and a name chosen by one
   * upstream must never route the calls meant for another's tool.
   */
  routes: { upstream: Upstream; name: string }[];
  /** Changes whenever any upstream's list changes, and differs between authorization contexts. */
  key: string;
}

/** Each upstream's authorization context for one caller. */
export type CallerScopes = Map<Upstream, CallerScope>;

/** Merges remembered (one per combination of authorization contexts in use). */
const MAX_MERGES = 64;

const KEY = /^[A-Za-z][A-Za-z0-9_]*$/;

/** The upstreams of one code-mode server. */
export class UpstreamSet {
  private readonly members: { prefix: string; upstream: Upstream; source: CodeUpstream }[];
  private readonly merges = new Map<string, { lists: Tool[][]; value: MergedTools }>();

  /**
   * @param sources - one unnamed upstream, or named upstreams (names become tool-name prefixes)
   * @param named - whether `sources` is a record of named upstreams
   * @param options - cache options for every member
   * @throws CodeModeError `upstream_invalid` for an empty set or a name that is not an identifier
   */
  constructor(
    sources: CodeUpstream | Record<string, CodeUpstream>,
    named: boolean,
    options: UpstreamOptions = {},
  ) {
    const entries: [string, CodeUpstream][] = named
      ? Object.entries(sources as Record<string, CodeUpstream>)
      : [["", sources as CodeUpstream]];
    if (entries.length === 0)
      throw new CodeModeError(
        "upstream_invalid",
        "codeMcpServer: `upstreams` is empty; name at least one upstream MCP server.",
      );
    for (const [name] of entries) {
      if (named && !KEY.test(name))
        throw new CodeModeError(
          "upstream_invalid",
          `codeMcpServer: upstream name "${name}" must be an identifier (letters, digits, _), since it prefixes tool names.`,
        );
    }
    // One upstream needs no prefix even when named: tool names stay as the server wrote them.
    this.members = entries.map(([name, upstream]) => ({
      prefix: entries.length > 1 ? name : "",
      upstream: new Upstream(upstream, options),
      source: upstream,
    }));
  }

  /**
   * Each upstream's authorization context for `caller` (calls per-caller `headers` functions).
   * @param caller - the outer request
   * @throws CodeModeError `upstream_headers_failed` when a `headers` function fails
   */
  async scopes(caller: UpstreamCaller): Promise<CallerScopes> {
    const scopes = await Promise.all(this.members.map((m) => callerScope(m.source, caller)));
    return new Map(this.members.map((m, i) => [m.upstream, scopes[i]!]));
  }

  /**
   * Every upstream's tools as `scopes` see them, merged (listed once per isolate and
   * authorization context, refreshed on change).
   * @param scopes - from {@link UpstreamSet.scopes}; omitted: the shared context
   */
  async tools(scopes?: CallerScopes): Promise<MergedTools> {
    const lists = await Promise.all(
      this.members.map((m) => m.upstream.tools(scopes?.get(m.upstream))),
    );
    const key = this.members
      .map((m) => `${m.upstream.version}${scopes?.get(m.upstream)?.key ?? ""}`)
      .join(".");
    const known = this.merges.get(key);
    if (known && known.lists.every((list, i) => list === lists[i])) return known.value;
    const tools: Tool[] = [];
    const routes: MergedTools["routes"] = [];
    this.members.forEach(({ prefix, upstream }, i) => {
      for (const tool of lists[i]!) {
        const name = prefix ? `${prefix}_${tool.name}` : tool.name;
        tools.push(prefix ? { ...tool, name } : tool);
        routes.push({ upstream, name: tool.name });
      }
    });
    const value = { tools, routes, key: `${key}:${tools.length}` };
    this.merges.delete(key);
    this.merges.set(key, { lists, value });
    if (this.merges.size > MAX_MERGES) this.merges.delete(this.merges.keys().next().value!);
    return value;
  }
}
