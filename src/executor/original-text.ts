/**
 * Maps a piece of the run's generated module (what `Function.prototype.toString` of one of the
 * program's functions prints inside the sandbox, budget ticks included) back to the program's
 * own text, without the instrumentation. Host functions get it as `HostCallContext.originalText`
 * (saved skills store the function as the model wrote it, and only text that is part of the
 * program: anything else answers undefined).
 */
import { originalOffset } from "./position-map";
import type { PreparedCode } from "./prepare-code";

/**
 * A mapper over one run's prepared code.
 * @param prepared - the run's module, its source and the insertions between them
 * @returns `(generated) => original text`, undefined when `generated` is not a piece of the
 *   program's part of the module (the prelude's functions are not the program's)
 */
export function originalTextOf(
  prepared: Pick<PreparedCode, "module" | "source" | "insertions">,
): (generated: string) => string | undefined {
  return (generated) => {
    if (typeof generated !== "string" || generated === "") return undefined;
    const at = prepared.module.indexOf(generated);
    if (at < 0) return undefined;
    const start = originalOffset(at, prepared.insertions);
    const end = originalOffset(at + generated.length, prepared.insertions);
    // A piece inside inserted text (the prelude) maps to an empty range.
    if (end <= start) return undefined;
    return prepared.source.slice(start, end);
  };
}
