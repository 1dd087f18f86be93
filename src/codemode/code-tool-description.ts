/**
 * The `code` tool's description: how to write the program, then either every upstream
 * declaration inline (when it all fits the budget) or a compact catalogue plus the discovery
 * helpers. Widely used clients cut tool descriptions at 2,048 characters, so the default budget
 * is 2,048 and the description never exceeds it, whatever the number of tools.
 */
import type { ToolCatalog } from "./tool-catalog";

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
    `Tool results arrive parsed (structured content or JSON); tool errors throw. Return JSON (over ${kb} KB is truncated); console.log output is shown. No network access.`,
    input.extra?.trim() ?? "",
  ]
    .filter(Boolean)
    .join("\n");

  const inline = `${head}\n\n\`\`\`ts\n${catalog.namespaceDeclaration()}\n\`\`\``;
  if (inline.length <= budget) return inline;

  const { search, describe } = catalog.helperNames;
  const help = `\n\nTypes are not listed here. Inside your code, first look them up: await codemode.${describe}("tool_name") returns its TypeScript declaration; await codemode.${search}("words") returns matching tools with declarations.`;
  const prefix = `${head}${help}\nTools: `;
  const room = budget - prefix.length;
  const names = catalog.entries.map((e) => e.identifier);
  let listed = "";
  for (let i = 0; i < names.length; i++) {
    const next = listed ? `${listed}, ${names[i]}` : names[i]!;
    const rest = names.length - i - 1;
    const tail = rest > 0 ? `, … ${rest} more (use ${search})` : "";
    if (next.length + tail.length > room) {
      listed = `${listed}${listed ? ", " : ""}… ${names.length - i} more (use ${search})`;
      break;
    }
    listed = next;
  }
  const text = `${prefix}${listed}`;
  // A budget too small even for the rules: cut, but never exceed it.
  return text.length <= budget ? text : `${text.slice(0, budget - 1)}…`;
}
