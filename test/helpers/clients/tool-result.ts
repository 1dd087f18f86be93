/** Tool results in tests: reading the text a tool answered, and building a text answer. */

/** The text of a tool result's first content block. */
export function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0]!.text;
}

/** A tool result holding one text block (what a fixture tool answers). */
export function textResult(value: string) {
  return { content: [{ type: "text" as const, text: value }] };
}
