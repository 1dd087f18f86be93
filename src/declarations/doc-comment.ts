/**
 * TSDoc comments for generated declarations. Descriptions come from specs and upstream servers:
 * untrusted text, so `*\/` is broken up to keep the comment (and the declaration) intact.
 */

/**
 * Renders lines as a doc comment at an indentation, or "" when there is nothing to say.
 * json-schema-to-typescript's layout: `/**`, one ` * line` per line, ` *\/`.
 * @param text - the comment text (may span lines); empty lines inside are kept
 * @param indent - leading spaces for every line
 * @param tags - extra lines such as `@deprecated`, appended after the text
 */
export function docComment(text: string | undefined, indent = "", tags: string[] = []): string {
  const body = (text ?? "").replace(/\r\n?/g, "\n").trim();
  const lines = [
    ...tags.filter((t) => t.startsWith("@deprecated")),
    ...(body ? body.split("\n") : []),
    ...tags.filter((t) => !t.startsWith("@deprecated")),
  ];
  if (lines.length === 0) return "";
  const safe = lines.map((line) => line.replaceAll("*/", "*\\/").trimEnd());
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)).join("\n")}\n${indent} */\n`;
}
