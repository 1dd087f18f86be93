/** The one plain-object check, shared by every layer (it imports nothing). */

/**
 * Whether `value` is a non-null, non-array object (a JSON object or a record).
 * @param value - anything
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
