/**
 * Maps positions in the generated sandbox module back to the model's original code, so errors
 * name the line and column the model wrote. Instrumentation only inserts text (never deletes),
 * so the map is the sorted list of insertions.
 */

/** One piece of inserted text, at an offset of the original code. */
export interface Insertion {
  /** Offset in the original code before which `text` is inserted. */
  at: number;
  text: string;
}

/** A 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

/**
 * Applies sorted insertions to `source`.
 * @param source - the original code
 * @param insertions - insertions sorted by offset (stable for equal offsets)
 */
export function applyInsertions(source: string, insertions: readonly Insertion[]): string {
  let out = "";
  let last = 0;
  for (const ins of insertions) {
    out += source.slice(last, ins.at) + ins.text;
    last = ins.at;
  }
  return out + source.slice(last);
}

/**
 * Converts a 1-based line/column into an offset of `text`; `undefined` when out of range.
 * @param text - the text the position refers to
 * @param pos - the position
 */
export function offsetOf(text: string, pos: Position): number | undefined {
  let offset = 0;
  for (let line = 1; line < pos.line; line++) {
    const next = text.indexOf("\n", offset);
    if (next < 0) return undefined;
    offset = next + 1;
  }
  return offset + pos.column - 1;
}

/**
 * Converts an offset of `text` into a 1-based line/column.
 * @param text - the text the offset refers to
 * @param offset - 0-based offset
 */
export function positionOf(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Maps an offset of the generated text back to an offset of the original code. An offset inside
 * inserted text maps to the original offset the insertion sits at.
 * @param generatedOffset - offset in the text {@link applyInsertions} produced
 * @param insertions - the same sorted insertions
 */
export function originalOffset(generatedOffset: number, insertions: readonly Insertion[]): number {
  let shift = 0;
  for (const ins of insertions) {
    const insStart = ins.at + shift;
    if (generatedOffset < insStart) break;
    if (generatedOffset < insStart + ins.text.length) return ins.at;
    shift += ins.text.length;
  }
  return generatedOffset - shift;
}
