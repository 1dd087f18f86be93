/**
 * The catalogue of upstream tools as code mode presents them: identifiers, TypeScript
 * declarations (built lazily, once per tool list), input validators, and the discovery helpers
 * `codemode.search(query)` / `codemode.describe(name)`.
 */
import { Validator, type Schema } from "@cfworker/json-schema";
import type { Tool } from "@modelcontextprotocol/server";
import { toolDeclarations, type ToolDeclarations } from "../../declarations/tool-declarations";
import { validationSchema } from "./tool-input-schema";

/** One upstream tool as code mode sees it. */
export interface CatalogEntry {
  tool: Tool;
  /** Property name under `codemode`. */
  identifier: string;
  /** Complete TypeScript for this tool alone (its types and method). */
  declaration: string;
  /** The method on one line, input and output types inline, no doc comment. */
  compact: string;
  /** {@link compact} without the output type. */
  compactInput: string;
}

/** A search hit returned to sandbox code. */
export interface SearchHit {
  name: string;
  description: string;
  declaration: string;
}

/** Distinct words of a search query that count (the rest are ignored). */
export const MAX_QUERY_WORDS = 32;

/** Helper functions every code-mode namespace offers besides the tools. */
export const HELPERS = ["search", "describe"] as const;

/** Tool catalogue for one tool list. */
export class ToolCatalog {
  readonly entries: CatalogEntry[];
  readonly collisions: string[];
  /** Identifiers under which the helpers are reachable (`search`/`describe`, or `$search` when a tool took the name). */
  readonly helperNames: { search: string; describe: string };
  private readonly byName = new Map<string, CatalogEntry>();
  private readonly validators = new Map<string, Validator>();
  private readonly declared: ToolDeclarations;

  /**
   * @param tools - the upstream's tools
   */
  constructor(tools: readonly Tool[]) {
    this.declared = toolDeclarations(tools);
    this.collisions = this.declared.collisions.map(
      (c) =>
        `"${c.tool}" is available as codemode.${c.identifier} (its plain name belongs to "${c.conflictsWith}")`,
    );
    this.entries = tools.map((tool, i) => {
      const declared = this.declared.tools[i]!;
      return {
        tool,
        identifier: declared.identifier,
        declaration: declared.text,
        compact: declared.compact,
        compactInput: declared.compactInput,
      };
    });
    // Identifiers first: a tool's upstream name may equal another tool's identifier (two
    // upstreams' names that merge into one), and `describe` must show what the method calls.
    for (const entry of this.entries) this.byName.set(entry.identifier, entry);
    for (const entry of this.entries)
      if (!this.byName.has(entry.tool.name)) this.byName.set(entry.tool.name, entry);
    const ids = new Set(this.entries.map((e) => e.identifier));
    this.helperNames = {
      search: ids.has("search") ? "$search" : "search",
      describe: ids.has("describe") ? "$describe" : "describe",
    };
  }

  /**
   * Finds a tool by identifier or upstream name.
   * @param name - `list_projects`, `codemode.list_projects` or the upstream name
   */
  find(name: string): CatalogEntry | undefined {
    return this.byName.get(name.replace(/^codemode\./, ""));
  }

  /**
   * The TypeScript declaration of one tool.
   * @param entry - the tool
   */
  declaration(entry: CatalogEntry): string {
    return entry.declaration;
  }

  /** Every type, then `declare const codemode: { … }` with one method per tool. */
  namespaceDeclaration(): string {
    return this.declared.text.trimEnd();
  }

  /**
   * Checks `input` against the tool's input schema.
   * @param entry - the tool
   * @param input - the argument the code passed
   * @returns problems as `path: message` lines (empty when valid)
   */
  validate(entry: CatalogEntry, input: unknown): string[] {
    let validator = this.validators.get(entry.identifier);
    if (!validator) {
      // Without the patterns a crafted argument could make backtrack for minutes on the host.
      validator = new Validator(
        validationSchema(entry.tool.inputSchema) as Schema,
        "2020-12",
        false,
      );
      this.validators.set(entry.identifier, validator);
    }
    const result = validator.validate(input ?? {});
    if (result.valid) return [];
    // cfworker reports the failing keyword chain; the deepest entries say the most.
    return (
      result.errors
        .filter((e) => e.keyword !== "properties" && e.keyword !== "items" && e.keyword !== "$ref")
        .slice(0, 5)
        // Without the message's own final period: the caller joins them into one sentence.
        .map(
          (e) =>
            `${e.instanceLocation.replace(/^#/, "input") || "input"}: ${e.error.replace(/\.$/, "")}`,
        )
    );
  }

  /**
   * Ranks tools against a free-text query (name words weigh more than description words).
   * @param query - words to look for
   * @param limit - most hits returned
   */
  search(query: string, limit = 8): SearchHit[] {
    // The query is a program's choice (up to maxCallBytes): every word is looked for in every
    // tool's text, so a 4 MB query of distinct words cost seconds of the host's thread per call.
    const distinct = new Set<string>();
    for (const [word] of String(query)
      .toLowerCase()
      .matchAll(/[a-z0-9]+/g)) {
      distinct.add(word);
      if (distinct.size === MAX_QUERY_WORDS) break; // the rest is never split or kept
    }
    const words = [...distinct];
    const scored = this.entries.map((entry) => {
      const name = entry.tool.name.toLowerCase();
      const text = `${entry.tool.title ?? ""} ${entry.tool.description ?? ""}`.toLowerCase();
      let score = 0;
      for (const word of words) {
        if (name === word) score += 10;
        else if (name.includes(word)) score += 5;
        if (text.includes(word)) score += 1;
      }
      return { entry, score };
    });
    return scored
      .filter((s) => s.score > 0 || words.length === 0)
      .toSorted((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ entry }) => ({
        name: `codemode.${entry.identifier}`,
        description: firstSentence(entry.tool.description ?? entry.tool.title ?? ""),
        declaration: this.declaration(entry),
      }));
  }
}

/**
 * First sentence of a description, at most 120 characters.
 * @param text - a tool description
 */
export function firstSentence(text: string): string {
  const sentence = text.trim().split(/(?<=[.!?])\s|\n/)[0] ?? "";
  return sentence.length > 120 ? `${sentence.slice(0, 117)}…` : sentence;
}
