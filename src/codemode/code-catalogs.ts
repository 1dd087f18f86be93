/**
 * What a `code` server built for one request knows about its upstreams: the tool catalog, the
 * tool description, the call routes, each upstream's authorization context and the redactor
 * for that context. Built once per tool list (and so per authorization context when a remote
 * upstream's `headers` is a function of the caller) and reused by every request that sees the
 * same lists, since building declarations and the description is the expensive part.
 */
import { codeToolDescription } from "./code-tool-description";
import { secretRedactor, type Redactor } from "./redaction/redaction";
import { ToolCatalog } from "./upstream/tool-catalog";
import { redactTool } from "./redaction/tool-list-redaction";
import type { UpstreamCaller } from "./upstream/upstream-connection";
import type { CallerScopes, MergedTools, UpstreamSet } from "./upstream/upstream-set";

/** How the description is written (from `codeMcpServer`'s options). */
export interface DescriptionOptions {
  serverName: string;
  budget: number;
  maxResultBytes: number;
  extra?: string;
}

/** One request's view of the upstreams. */
export interface CallerTools {
  catalog: ToolCatalog;
  description: string;
  routes: MergedTools["routes"];
  scopes: CallerScopes;
  /** The configured secrets plus the caller's computed header values. */
  redactor: Redactor;
}

/** Catalogs and redactors remembered (one per tool list or set of per-caller headers in use). */
const MAX_ENTRIES = 32;

/** The catalogs of one `codeMcpServer`. */
export class CodeCatalogs {
  private readonly catalogs = new Map<string, Omit<CallerTools, "scopes" | "redactor">>();
  private readonly redactors = new Map<string, Redactor>();
  private readonly base: Redactor;

  /**
   * @param upstreams - the wrapped upstreams
   * @param secrets - the configured secrets (already checked)
   * @param describe - how to write the tool description
   */
  constructor(
    private readonly upstreams: UpstreamSet,
    private readonly secrets: readonly string[],
    private readonly describe: DescriptionOptions,
  ) {
    this.base = secretRedactor(Object.freeze([...secrets]));
  }

  /**
   * The tools as `caller` sees them.
   * @param caller - the outer request
   * @throws CodeModeError `upstream_headers_failed` when a `headers` function fails,
   *   `upstream_unreachable` when an upstream cannot be listed
   */
  async forCaller(caller: UpstreamCaller): Promise<CallerTools> {
    const scopes = await this.upstreams.scopes(caller);
    const redactor = this.redactorFor(scopes);
    const merged = await this.upstreams.tools(scopes);
    let cached = this.catalogs.get(merged.key);
    if (!cached) {
      // The tool list reaches the sandbox (search, describe) and the client: names redacted
      // too (calls route by position, not by the name shown).
      const catalog = new ToolCatalog(
        redactor.active ? merged.tools.map((tool) => redactTool(tool, redactor)) : merged.tools,
      );
      const description = codeToolDescription({
        catalog,
        serverName: this.describe.serverName,
        budget: this.describe.budget,
        maxResultBytes: this.describe.maxResultBytes,
        ...(this.describe.extra === undefined ? {} : { extra: this.describe.extra }),
      });
      cached = { catalog, description, routes: merged.routes };
      remember(this.catalogs, merged.key, cached);
    }
    return { ...cached, scopes, redactor };
  }

  /** Per-caller header values are credentials too: removed like the configured secrets. */
  private redactorFor(scopes: CallerScopes): Redactor {
    const extra = [...scopes.values()].filter((scope) => scope.secrets.length > 0);
    if (extra.length === 0) return this.base;
    const key = extra.map((scope) => scope.key).join(".");
    let found = this.redactors.get(key);
    if (!found) {
      found = secretRedactor(
        Object.freeze([...this.secrets, ...extra.flatMap((scope) => scope.secrets)]),
      );
      remember(this.redactors, key, found);
    }
    return found;
  }
}

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}
