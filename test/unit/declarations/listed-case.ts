/** The shape of a listed declarations case (exactness-cases.ts, vocabulary-cases.ts). */

/** One schema and the TypeScript input type it must mean. */
export interface Case {
  name: string;
  schema: Record<string, unknown>;
  /** The input type it must mean, as TypeScript. */
  expected: string;
  /** Whether the `input` parameter must be required. */
  inputRequired?: boolean;
  /** Named types `expected` refers to (recursive shapes need names). */
  expectedTypes?: string;
  /** Text the declarations must contain (modifiers that assignability does not see). */
  emits?: string;
}
