/**
 * The `--only` flags of `node bench/run.mjs` (see code-only.mjs): which rows run alone and how
 * many rounds each gets. Apart from code-only.mjs so the parsing is tested without the servers.
 */

/** The phases `--only` accepts. */
const PHASES = new Set(["p7", "p8", "s"]);

/**
 * Reads `--only`, `--reps` and `--warm-up` from `argv`.
 * @param {string[]} argv
 * @returns {{ only: string[], reps: number, searchReps: number, warmUp: number } | undefined}
 *   undefined without `--only`; `searchReps` is S's rounds (`--reps`, else the full run's 5:
 *   each S round takes the anchor seconds per program)
 * @throws Error naming the bad flag value and what to give instead
 */
export function codeOnlyArgs(argv) {
  /** @param {string} flag */
  const value = (flag) => {
    const i = argv.indexOf(flag);
    return i < 0 ? undefined : argv[i + 1];
  };
  const only = value("--only");
  if (only === undefined) return undefined;
  const phases = only.split(",").map((p) => p.trim().toLowerCase());
  const unknown = phases.filter((p) => !PHASES.has(p));
  if (unknown.length > 0 || phases.length === 0)
    throw new Error(`--only takes p7, p8, s or a list of them such as p7,p8 (got "${only}")`);
  /**
   * @param {string} flag
   * @param {number} fallback
   */
  const count = (flag, fallback) => {
    const raw = value(flag);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0)
      throw new Error(`${flag} takes a whole number (got "${raw}")`);
    return n;
  };
  return {
    only: phases,
    reps: count("--reps", 60),
    searchReps: count("--reps", 5),
    warmUp: count("--warm-up", 5),
  };
}
