/**
 * The bounds on saved skills, per skill and per owner. Every field has a default; the product
 * reads overrides from its settings. Checked when a skill is saved (skill-draft.ts) and again by
 * the store (a library user may call a store directly).
 */

/** Bounds on what one owner may keep. */
export interface SkillLimits {
  /** Skills one owner may keep (each with its versions). */
  maxSkills: number;
  /** Versions kept per skill; saving past it drops the oldest that is not current. */
  maxVersions: number;
  /** Characters of one skill's code. */
  maxCodeChars: number;
  /** Characters of one skill's description (its first line is what the tool lists). */
  maxDescriptionChars: number;
  /** Characters of one JSON Schema (input or output) as JSON text. */
  maxSchemaChars: number;
  /**
   * Characters of all the skills' code one run loads (the skills the program calls and those
   * they call): the prelude is prepared on the host and compiled in the sandbox on every run,
   * so its size is bounded like a program's (`maxCodeChars` of the executor).
   */
  maxRunCodeChars: number;
  /** Skills one run may save. */
  maxSavesPerRun: number;
}

/**
 * Characters of `skills.declarations()`: skills are declared in listing order until the next
 * would pass it; the rest are named only, in a closing comment. Every run may call it (a
 * `search` too), and each skill's schema, within `maxSchemaChars`, can still declare as ~90 KB
 * when nested deep (indentation grows with the square of the depth): 100 such skills made
 * 9.2 MB and held the host's thread ~4.7 s per call. Honest skill sets stay far below it.
 */
export const MAX_DECLARATIONS_CHARS = 262_144;

/** The defaults: generous for real skills, small enough that a listing stays cheap. */
export const DEFAULT_SKILL_LIMITS: Readonly<SkillLimits> = Object.freeze({
  maxSkills: 100,
  maxVersions: 20,
  maxCodeChars: 32_000,
  maxDescriptionChars: 1_000,
  maxSchemaChars: 8_000,
  maxRunCodeChars: 131_072,
  maxSavesPerRun: 5,
});

/**
 * The limits with `overrides` applied over the defaults.
 * @param overrides - fields to change
 * @returns a complete, frozen set of limits
 */
export function skillLimits(overrides: Partial<SkillLimits> = {}): Readonly<SkillLimits> {
  return Object.freeze({ ...DEFAULT_SKILL_LIMITS, ...overrides });
}
