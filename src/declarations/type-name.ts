/**
 * Naming policy shared by the run-time emitter and the build-time step (json-schema-to-typescript):
 * type names follow json-schema-to-typescript's `toSafeString` exactly, so both paths name the
 * same schema the same way; tool method names stay as close to the upstream name as TypeScript
 * allows, so the model recognizes them.
 */

import { RESERVED_TYPE_NAMES } from "./reserved-names";

/**
 * A PascalCase type name for any text, as json-schema-to-typescript's `toSafeString` makes it
 * (`dns-records_dns-record-post` → `DnsRecordsDnsRecordPost`); `"NoName"` when nothing is left.
 * @param text - a schema key, title or operationId
 */
export function toTypeName(text: string): string {
  const name = text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/(^\s*[^a-zA-Z_$])|([^a-zA-Z_$\d])/g, " ")
    .replace(/^_[a-z]/g, (m) => m.toUpperCase())
    .replace(/_[a-z]/g, (m) => m.slice(1).toUpperCase())
    .replace(/([\d$]+[a-zA-Z])/g, (m) => m.toUpperCase())
    .replace(/\s+([a-zA-Z])/g, (m) => m.toUpperCase().trim())
    .replace(/\s/g, "")
    .replace(/^\d+/, "");
  const upper = name.charAt(0).toUpperCase() + name.slice(1);
  return upper || "NoName";
}

/**
 * Whether text is a plain identifier (`[A-Za-z_$][\w$]*`), usable unquoted as a property key.
 * @param text - candidate
 */
export function isIdentifier(text: string): boolean {
  return /^[A-Za-z_$][\w$]*$/.test(text);
}

/**
 * A property key as written in a type literal: bare when it is an identifier, quoted otherwise.
 * `__proto__` is always quoted: bare, it means the prototype in an object literal, and a reader
 * (or a program copying the shape) must see an ordinary property.
 * @param key - the property name
 */
export function propertyKey(key: string): string {
  return isIdentifier(key) && key !== "__proto__" ? key : JSON.stringify(key);
}

/**
 * A method name for a tool: the upstream name with every character outside `[A-Za-z0-9_$]`
 * replaced by `_` and a leading `_` before a digit. Reserved words stay as they are: methods are
 * properties of the `codemode` object, and `codemode.delete(…)` is valid. `__proto__` gets a
 * trailing `_`: assigned as a property it sets the object's prototype instead (on the host's and
 * the sandbox's namespace objects), so it could never be a method.
 * @param name - the upstream tool name, e.g. `github.create-issue`
 */
export function toIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, "_");
  if (id === "" || /^\d/.test(id)) id = "_" + id;
  return id === "__proto__" ? "__proto___" : id;
}

/**
 * Hands out unique names: the first claim gets the base name, later ones `Base1`, `Base2`, …
 * Global type names ({@link RESERVED_TYPE_NAMES}) are never handed out.
 */
export class NameAllocator {
  readonly #used = new Set<string>(RESERVED_TYPE_NAMES);

  /**
   * @param taken - names that are never handed out (e.g. names reserved elsewhere)
   */
  constructor(taken: Iterable<string> = []) {
    for (const name of taken) this.#used.add(name);
  }

  /**
   * Claims a unique name derived from `base` (already a valid name).
   * @param base - the preferred name
   */
  claim(base: string): string {
    let name = base;
    for (let n = 1; this.#used.has(name); n++) name = `${base}${n}`;
    this.#used.add(name);
    return name;
  }

  /**
   * Whether a name is taken.
   * @param name - a name
   */
  has(name: string): boolean {
    return this.#used.has(name);
  }
}
