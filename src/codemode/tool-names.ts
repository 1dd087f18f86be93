/**
 * Upstream tool names → JavaScript identifiers for `codemode.<name>`. MCP tool names may hold
 * dashes, dots, slashes or start with a digit; the model must be able to write them as plain
 * property accesses. Collisions after conversion are resolved with a numeric suffix and
 * reported, never silently merged.
 */

/** The identifier assigned to each upstream tool, and what had to be renamed. */
export interface ToolNaming {
  /** Upstream name → identifier. */
  identifiers: Map<string, string>;
  /** Human-readable notes on collisions (empty when none). */
  collisions: string[];
}

const RESERVED = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await".split(
    " ",
  ),
);

/**
 * Converts one name into a valid identifier (`list-projects` → `list_projects`).
 * @param name - an upstream tool name
 */
export function toIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, "_");
  if (id === "" || /^[0-9]/.test(id)) id = `_${id}`;
  if (RESERVED.has(id)) id = `${id}_`;
  return id;
}

/**
 * Assigns identifiers to all names, avoiding `taken` (helper names of the namespace).
 * @param names - upstream tool names, in catalogue order
 * @param taken - identifiers already used in the namespace
 */
export function assignIdentifiers(
  names: readonly string[],
  taken: ReadonlySet<string> = new Set(),
): ToolNaming {
  const identifiers = new Map<string, string>();
  const used = new Map<string, string>();
  const collisions: string[] = [];
  // Names that are already valid keep their identifier; converted names yield to them.
  const ordered = names.toSorted(
    (a, b) => Number(toIdentifier(a) !== a) - Number(toIdentifier(b) !== b),
  );
  for (const name of ordered) {
    const base = toIdentifier(name);
    let id = base;
    for (let n = 2; used.has(id) || taken.has(id); n++) id = `${base}_${n}`;
    if (id !== base)
      collisions.push(
        `"${name}" is available as codemode.${id} (codemode.${base} is ${used.has(base) ? `"${used.get(base)}"` : "a helper"})`,
      );
    used.set(id, name);
    identifiers.set(name, id);
  }
  return { identifiers, collisions };
}
