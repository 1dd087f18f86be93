/**
 * The `sql` tagged template of `McpAgent`: interpolated values become bound parameters,
 * never SQL text, so `sql\`SELECT * FROM t WHERE id = ${id}\`` is injection-safe.
 */

/** A value SQLite can bind. */
export type SqlValue = string | number | boolean | null | ArrayBuffer | Uint8Array;

/**
 * Runs one statement against a Durable Object's SQLite database.
 *
 * Security defaults: every interpolation is a `?` parameter; identifiers (table and column
 * names) cannot be interpolated and must be written literally.
 *
 * Does not do: multiple statements per call, or transactions (use
 * `ctx.storage.transactionSync`).
 *
 * @param sql - the object's `ctx.storage.sql`
 * @param strings - template literal parts
 * @param values - interpolated values, bound in order
 * @returns all result rows
 */
export function runSqlTemplate<T = Record<string, SqlValue>>(
  sql: SqlStorage,
  strings: TemplateStringsArray,
  values: SqlValue[],
): T[] {
  const query = strings.reduce(
    (text, part, index) => text + part + (index < values.length ? "?" : ""),
    "",
  );
  const bound = values.map((value) => (typeof value === "boolean" ? Number(value) : value));
  return sql.exec(query, ...bound).toArray() as T[];
}
