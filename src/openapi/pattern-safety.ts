/**
 * Regular expressions from a spec (`pattern`, `patternProperties`) applied on the host to values
 * a sandbox program chose. V8's backtracking engine takes exponential time on some patterns
 * (`^(a+)+$` against 30 `a`s and a `!`: minutes of one thread), and on the host that thread
 * serves every client. The spec is the operator's, but its patterns were not written with hostile
 * input in mind, so each pattern is classified once:
 *
 * - **exponential** (a quantified group that itself contains a quantifier or an alternation,
 *   e.g. `(a+)+`, `(\w+\s?)*`, `(a|ab)*`; or a backreference): never applied. Request validation
 *   is an early, friendly refusal, not the API's own check; the upstream still validates.
 * - **polynomial** (k ≥ 2 unbounded quantifiers, e.g. `^\d+\d+$`, cost up to n^k): applied only
 *   to values short enough that n^k stays under {@link STEP_BUDGET}; longer values are not checked.
 * - **linear** otherwise: always applied.
 *
 * The classification is conservative (it over-approximates danger): a harmless nested quantifier
 * such as `(ab+)*` is not applied either. Local runs also have V8's linear-time fallback switched
 * on (see docs/security.md), which covers what this misses there; on Cloudflare the CPU limit ends
 * a request that still backtracks too long.
 */

/** Roughly how many backtracking steps one check may cost (about 10 ms of V8 time). */
export const STEP_BUDGET = 10_000_000;

/** A compiled spec pattern with its safety bound. */
export interface SpecPattern {
  /** Whether `value` matches; `true` when the pattern is not applied to a value of this length. */
  test(value: string): boolean;
  /** Why the pattern is never applied, when it is not. */
  skipped?: string;
}

/**
 * Classifies a regular expression source (see the module comment).
 * @param source - the pattern text, as written in the spec
 * @returns `exponential`, or the number of unbounded quantifiers
 */
export function patternRisk(source: string): "exponential" | { unbounded: number } {
  // For each open group: whether it contains a quantifier or an alternation.
  const groups: { risky: boolean }[] = [];
  let unbounded = 0;
  let lastGroupRisky = false;
  let afterGroup = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const quantifier = quantifierAt(source, i);
    if (quantifier) {
      if (afterGroup && lastGroupRisky && quantifier.repeats) return "exponential";
      if (quantifier.unbounded) unbounded++;
      // Even `?` counts: `(a?b?)*` gives the engine many ways to split the same input.
      for (const g of groups) g.risky = true;
      i += quantifier.length - 1;
      afterGroup = false;
      continue;
    }
    afterGroup = false;
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k") return "exponential";
      i++;
    } else if (c === "[") {
      // A class is one atom: skip to its unescaped end.
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
    } else if (c === "(") {
      groups.push({ risky: false });
    } else if (c === ")") {
      lastGroupRisky = groups.pop()?.risky ?? false;
      afterGroup = true;
    } else if (c === "|") {
      for (const g of groups) g.risky = true;
      // A top-level alternation under no group cannot be repeated.
    }
  }
  return { unbounded };
}

/** A quantifier starting at `i`: its length, whether it repeats (max > 1) and whether without bound. */
function quantifierAt(
  source: string,
  i: number,
): { length: number; repeats: boolean; unbounded: boolean } | undefined {
  const c = source[i];
  const lazy = (n: number) => (source[i + n] === "?" ? n + 1 : n);
  if (c === "*" || c === "+") return { length: lazy(1), repeats: true, unbounded: true };
  if (c === "?") return { length: lazy(1), repeats: false, unbounded: false };
  if (c !== "{") return undefined;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
  if (!match) return undefined;
  const max =
    match[2] === undefined ? Number(match[1]) : match[3] === "" ? Infinity : Number(match[3]);
  return { length: lazy(match[0].length), repeats: max > 1, unbounded: max === Infinity };
}

const cache = new Map<string, SpecPattern | null>();

// Read differently with and without `u` (conservative: an escaped backslash before `p` counts).
const DIFFERS_WITHOUT_U = /\\[pP]|\\u\{|\\u[dD][89a-fA-F]|[\uD800-\uDFFF]/;
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Tests with the `u` flag (JSON Schema's dialect), or without it when that means exactly the same
 * (no surrogates in the value; no `\p`, `\u{…}` or surrogate in the pattern): V8's linear-time
 * fallback for catastrophic backtracking, switched on in local runtimes, does not take `u`
 * patterns, and without it a pattern this module let through could still backtrack there.
 */
function matcher(source: string, unicode: RegExp): (value: string) => boolean {
  const plain = DIFFERS_WITHOUT_U.test(source) ? null : new RegExp(source);
  return (value) => (plain && !SURROGATE.test(value) ? plain : unicode).test(value);
}

/**
 * Compiles a spec pattern once (with the `u` flag, as JSON Schema means), bounded as the module
 * comment describes; `null` for patterns JavaScript cannot read (other dialects are not held
 * against a request).
 * @param source - the pattern text
 */
export function compileSpecPattern(source: string): SpecPattern | null {
  let compiled = cache.get(source);
  if (compiled !== undefined) return compiled;
  let re: RegExp | undefined;
  try {
    re = new RegExp(source, "u");
  } catch {
    re = undefined;
  }
  const risk = re ? patternRisk(source) : "exponential";
  if (!re) compiled = null;
  else if (risk === "exponential")
    compiled = {
      test: () => true,
      skipped: "nested or alternated quantifiers can take exponential time",
    };
  else {
    const test = matcher(source, re);
    const maxLength =
      risk.unbounded < 2 ? Infinity : Math.floor(STEP_BUDGET ** (1 / risk.unbounded));
    compiled = { test: (value) => value.length > maxLength || test(value) };
  }
  cache.set(source, compiled);
  return compiled;
}

/**
 * Whether a `patternProperties` pattern claims `key`. A pattern that is not applied adds no
 * constraint to any key (claiming every key would hold unrelated schemas against them).
 * @param source - the pattern text
 * @param key - a property name of the value
 */
export function patternNamesKey(source: string, key: string): boolean {
  const re = compileSpecPattern(source);
  return re !== null && re.skipped === undefined && re.test(key);
}
