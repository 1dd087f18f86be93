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
 *   to values short enough that the cost stays under {@link STEP_BUDGET}; longer values are not
 *   checked. Two things count as well: a pattern not anchored with a leading `^` is searched from
 *   every position (one more factor n: `[a-z]+[0-9]` took 5 s on 100,000 letters), and a bounded
 *   quantifier with a choice (`{1,1000}`, `?`) is a factor of its number of choices (three
 *   `\d{1,1000}` in a row took 3 s on 3,000 digits).
 * - **linear** otherwise (cost a constant times n): always applied.
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

/** What a pattern's backtracking cost depends on (see {@link patternRisk}). */
export interface PatternCost {
  /** Unbounded quantifiers (`*`, `+`, `{n,}`): a factor n each. */
  unbounded: number;
  /** The number of choices of each bounded quantifier with a choice (`?` is 2, `{1,63}` is 63). */
  bounded: number[];
  /** Whether a leading `^` (outside any alternation) pins the match to the start. */
  anchored: boolean;
}

/**
 * Classifies a regular expression source (see the module comment).
 * @param source - the pattern text, as written in the spec
 * @returns `exponential`, or what its polynomial cost depends on
 */
export function patternRisk(source: string): "exponential" | PatternCost {
  // For each open group: whether it contains a quantifier or an alternation.
  const groups: { risky: boolean }[] = [];
  let unbounded = 0;
  const bounded: number[] = [];
  let topLevelAlternation = false;
  let lastGroupRisky = false;
  let afterGroup = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const quantifier = quantifierAt(source, i);
    if (quantifier) {
      if (afterGroup && lastGroupRisky && quantifier.repeats) return "exponential";
      if (quantifier.unbounded) unbounded++;
      else if (quantifier.choices > 1) bounded.push(quantifier.choices);
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
      // `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`: the `?` there is syntax, not a quantifier.
      i += groupPrefixLength(source, i + 1);
    } else if (c === ")") {
      lastGroupRisky = groups.pop()?.risky ?? false;
      afterGroup = true;
    } else if (c === "|") {
      for (const g of groups) g.risky = true;
      // A top-level alternation under no group cannot be repeated, but its branches are not
      // anchored by a `^` at the start of the first one.
      if (groups.length === 0) topLevelAlternation = true;
    }
  }
  return { unbounded, bounded, anchored: source.startsWith("^") && !topLevelAlternation };
}

/** Length of a group's `?:`-style prefix after its `(` (0 for a plain capturing group). */
function groupPrefixLength(source: string, at: number): number {
  if (source[at] !== "?") return 0;
  const kind = source[at + 1];
  if (kind === ":" || kind === "=" || kind === "!") return 2;
  if (kind !== "<") return 0;
  if (source[at + 2] === "=" || source[at + 2] === "!") return 3;
  const end = source.indexOf(">", at);
  return end < 0 ? 0 : end - at + 1;
}

/**
 * The longest value a pattern of this cost is applied to: the largest n with
 * n^(unbounded + 1 if not anchored) × Π min(choices, n) ≤ {@link STEP_BUDGET}; `Infinity` when
 * the cost is at most linear (one factor n, no bounded choices) or bounded by the budget.
 * @param cost - from {@link patternRisk}
 */
export function maxCheckedLength(cost: PatternCost): number {
  const power = cost.unbounded + (cost.anchored ? 0 : 1);
  if (power <= 1 && cost.bounded.length === 0) return Infinity;
  const steps = (n: number) => n ** power * cost.bounded.reduce((p, c) => p * Math.min(c, n), 1);
  if (power === 0 && steps(Infinity) <= STEP_BUDGET) return Infinity;
  // steps() grows with n: the largest n within the budget, by bisection.
  let [low, high] = [0, STEP_BUDGET];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (steps(mid) <= STEP_BUDGET) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * A quantifier starting at `i`: its length, whether it repeats (max > 1), whether without bound,
 * and how many repetition counts it may choose from (`{2,5}`: 4).
 */
function quantifierAt(
  source: string,
  i: number,
): { length: number; repeats: boolean; unbounded: boolean; choices: number } | undefined {
  const c = source[i];
  const lazy = (n: number) => (source[i + n] === "?" ? n + 1 : n);
  if (c === "*" || c === "+")
    return { length: lazy(1), repeats: true, unbounded: true, choices: Infinity };
  if (c === "?") return { length: lazy(1), repeats: false, unbounded: false, choices: 2 };
  if (c !== "{") return undefined;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
  if (!match) return undefined;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === "" ? Infinity : Number(match[3]);
  return {
    length: lazy(match[0].length),
    repeats: max > 1,
    unbounded: max === Infinity,
    choices: Math.max(1, max - min + 1),
  };
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
    const maxLength = maxCheckedLength(risk);
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
