/**
 * One-line type text for tight spaces (the `code` tool's description at mid-size tool sets):
 * doc comments dropped, whitespace collapsed, `; }` tightened, string literals kept exactly.
 */

/**
 * Compacts emitted type text to one line without changing its meaning.
 * @param type - type text from the schema emitter (may span lines, may hold doc comments)
 */
export function compactType(type: string): string {
  let out = "";
  let space = false;
  for (let i = 0; i < type.length; i++) {
    const c = type[i]!;
    if (c === '"') {
      // A string literal, copied as is (escapes included).
      let j = i + 1;
      while (j < type.length && type[j] !== '"') j += type[j] === "\\" ? 2 : 1;
      if (space && out && !/[\s([]$/.test(out)) out += " ";
      space = false;
      out += type.slice(i, j + 1);
      i = j;
    } else if (c === "/" && type.startsWith("/**", i)) {
      const end = type.indexOf("*/", i + 3);
      i = end < 0 ? type.length : end + 1;
      space = true;
    } else if (/\s/.test(c)) space = true;
    else {
      if (space && out && !/[\s([]$/.test(out) && !/[)\]]/.test(c)) out += " ";
      space = false;
      out += c;
    }
  }
  return out.replaceAll("; }", " }").trim();
}
