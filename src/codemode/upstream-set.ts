/**
 * Several upstream MCP servers behind one `code` tool. Each keeps its own cached tool list and
 * connections (see upstream-cache.ts); the set merges the lists, prefixing every tool name with its
 * upstream's key (`github_create_issue`) when there is more than one, and routes a call back to
 * the upstream and the tool's own name.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { CodeModeError } from "../errors";
import { Upstream, type UpstreamOptions } from "./upstream-cache";
import type { CodeUpstream } from "./upstream-connection";

/** The merged tool list and where each tool lives. */
export interface MergedTools {
  tools: Tool[];
  /** Merged name → the upstream serving it and the tool's name there. */
  routes: Map<string, { upstream: Upstream; name: string }>;
  /** Changes whenever any upstream's list changes. */
  key: string;
}

const KEY = /^[A-Za-z][A-Za-z0-9_]*$/;

/** The upstreams of one code-mode server. */
export class UpstreamSet {
  private readonly members: { prefix: string; upstream: Upstream }[];
  private merged: { lists: Tool[][]; key: string; value: MergedTools } | undefined;

  /**
   * @param sources - one unnamed upstream, or named upstreams (names become tool-name prefixes)
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
    }));
  }

  /** Every upstream's tools, merged (listed once per isolate, refreshed on change). */
  async tools(): Promise<MergedTools> {
    const lists = await Promise.all(this.members.map((m) => m.upstream.tools()));
    const key = this.members.map((m) => m.upstream.version).join(".");
    if (
      this.merged &&
      this.merged.key === key &&
      this.merged.lists.every((list, i) => list === lists[i])
    )
      return this.merged.value;
    const tools: Tool[] = [];
    const routes = new Map<string, { upstream: Upstream; name: string }>();
    this.members.forEach(({ prefix, upstream }, i) => {
      for (const tool of lists[i]!) {
        const name = prefix ? `${prefix}_${tool.name}` : tool.name;
        tools.push(prefix ? { ...tool, name } : tool);
        routes.set(name, { upstream, name: tool.name });
      }
    });
    const value = { tools, routes, key: `${key}:${tools.length}` };
    this.merged = { lists, key, value };
    return value;
  }
}
