/**
 * The `code` tool's description: how to write the program, then either every upstream
 * declaration inline (when it all fits the budget) or a compact catalogue plus the discovery
 * helpers. Widely used clients cut tool descriptions at 2,048 characters, so the default budget
 * is 2,048 and the description never exceeds it, whatever the number of tools.
 */
import { sandboxErrorsLine } from "../errors";
import type { ToolCatalog } from "./upstream/tool-catalog";

/** Inputs of {@link codeToolDescription}. */
export interface CodeToolDescriptionInput {
  catalog: ToolCatalog;
  /** Name of the wrapped server, for the first line. */
  serverName: string;
  /** Maximum description length in characters. */
  budget: number;
  /** Result size limit, stated so the model knows to return little. */
  maxResultBytes: number;
  /** Extra guidance from the operator, appended after the rules. */
  extra?: string;
}

/**
 * Writes the description.
 * @param input - catalogue, budget and limits
 */
export function codeToolDescription(input: CodeToolDescriptionInput): string {
  const { catalog, budget } = input;
  const kb = Math.max(1, Math.round(input.maxResultBytes / 1024));
  const head = [
    `Run JavaScript that calls the ${catalog.entries.length} tools of ${input.serverName} and returns only the answer.`,
    "Write an async arrow function: async () => { const r = await codemode.tool_name({ ... }); return r.items.filter(...); }",
    `Tool results arrive parsed (structured content or JSON). Return JSON (over ${kb} KB is truncated); console.log output is shown. No network access.`,
    sandboxErrorsLine(["UpstreamToolError", "LimitError"]),
    input.extra?.trim() ?? "",
  ]
    .filter(Boolean)
    .join("\n");

  const inline = `${head}\n\n\`\`\`ts\n${catalog.namespaceDeclaration()}\n\`\`\``;
  if (inline.length <= budget) return inline;

  // Too long inline: spend the budget on as much type information as fits, in this order:
  // every tool's compact signature with its output, then without outputs, then compact input
  // signatures for the first tools and the names of the rest. Outputs, named types and doc
  // comments are one `describe` away.
  const { search, describe } = catalog.helperNames;
  const lookup = `Full declarations (named types, outputs, docs): await codemode.${describe}("tool_name"); find tools: await codemode.${search}("words").`;
  for (const field of ["compact", "compactInput"] as const) {
    const lines = catalog.entries.map((e) => e[field]).join("\n");
    const text = `${head}\n\nCompact signatures. ${lookup}\n\`\`\`ts\n${lines}\n\`\`\``;
    if (text.length <= budget) return text;
  }
  const prefix = `${head}\n\nCompact signatures of the first tools, then the other tools' names. ${lookup}`;
  let best = `${prefix}\nTools: ${nameList(catalog, 0, budget - prefix.length - 8) ?? ""}`;
  for (let k = 1; k < catalog.entries.length; k++) {
    const lines = catalog.entries
      .slice(0, k)
      .map((e) => e.compactInput)
      .join("\n");
    const block = `${prefix}\n\`\`\`ts\n${lines}\n\`\`\`\nOther tools: `;
    if (block.length > budget) break;
    const rest = nameList(catalog, k, budget - block.length);
    if (rest === undefined) break;
    best = block + rest;
  }
  // A budget too small even for the rules: cut, but never exceed it.
  return best.length <= budget ? best : `${best.slice(0, budget - 1)}…`;
}

/**
 * The names of the tools from index `from` on, comma-separated, cut with `… N more (use search)`
 * to fit `room` characters; `undefined` when not even the cut mark fits.
 */
function nameList(catalog: ToolCatalog, from: number, room: number): string | undefined {
  const { search } = catalog.helperNames;
  const names = catalog.entries.slice(from).map((e) => e.identifier);
  let listed = "";
  for (let i = 0; i < names.length; i++) {
    const next = listed ? `${listed}, ${names[i]}` : names[i]!;
    const rest = names.length - i - 1;
    const tail = rest > 0 ? `, … ${rest} more (use ${search})` : "";
    if (next.length + tail.length > room) {
      listed = `${listed}${listed ? ", " : ""}… ${names.length - i} more (use ${search})`;
      return listed.length <= room ? listed : undefined;
    }
    listed = next;
  }
  return listed;
}
