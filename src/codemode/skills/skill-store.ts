/**
 * Where skills are kept: one interface, so the product's Durable Object store
 * (durable-skill-store.ts), the in-memory one (tests, a single isolate) and a library user's own
 * store are interchangeable.
 *
 * Model: an owner (an opaque key the host derives from the caller, see docs/skills.md) has
 * skills by name; each save of a name adds a version (1, 2, …) and makes it current; a roll back
 * makes an older version current again without deleting the newer ones; delete removes the name
 * with every version at once, so no later run can call it. Version numbers are never reused for a
 * name, even after a delete: a run record naming a version names one code for ever.
 */
import type { SkillLimits } from "./skill-limits";

/** A JSON Schema, as JSON data. */
export type JsonSchema = Record<string, unknown>;

/** What a save carries, already checked (skill-draft.ts). */
export interface SkillDraft {
  name: string;
  /** What the skill does; its first line is what tool descriptions list. */
  description: string;
  /** JSON Schema of the skill's one argument, checked on the host before every call. */
  input: JsonSchema;
  /** JSON Schema of what it returns, when the saver gave one (documentation only). */
  output?: JsonSchema;
  /** The function's source: one function expression (prelude-function.ts). */
  code: string;
  /**
   * The tool whose `codemode` the skill calls (`code`: upstream tools; `execute`: `request`):
   * set by a save when the code uses `codemode`, so the skill is listed and callable only in
   * that tool. Absent: the skill uses no `codemode` and works in every tool (docs/skills.md).
   */
  tool?: string;
}

/**
 * What a caller needs to call a skill, without its code: what `skills.declarations()` shows of
 * it (a declaration never shows the code, which may be up to `maxCodeChars` long).
 */
export type SkillSignature = Pick<SkillDraft, "name" | "description" | "input" | "output" | "tool">;

/** One stored version of a skill. */
export interface StoredSkill extends SkillDraft {
  version: number;
  /** When this version was saved (ms since the epoch). */
  savedAt: number;
}

/** A skill as a listing shows it: its current version, without the code. */
export interface SkillSummary {
  name: string;
  description: string;
  /** The current version. */
  version: number;
  /** The highest version saved (current may be lower after a roll back). */
  latest: number;
  /** The tool the skill needs ({@link SkillDraft.tool}); absent: every tool. */
  tool?: string;
  /** An operator's skill shipped with the server: callable by all, not saved over (read-only-skills.ts). */
  readOnly?: boolean;
  /** Calls of the skill by runs so far, all versions (stores that keep {@link SkillStore.recordUses}). */
  uses?: number;
  /** The error of the last run that called the skill and failed, when the store keeps it. */
  lastError?: { message: string; at: number; version: number };
}

/** What one run did with one skill, for {@link SkillStore.recordUses}. */
export interface SkillUseRecord {
  name: string;
  version: number;
  calls: number;
}

/** One version in a skill's history. */
export interface SkillVersionInfo {
  version: number;
  savedAt: number;
  current: boolean;
}

/** A place to keep skills, per owner. Every method may be called concurrently. */
export interface SkillStore {
  /**
   * The owner's skills, by name.
   * @param owner - whose skills
   */
  list(owner: string): Promise<SkillSummary[]>;
  /**
   * One skill: the current version, or the version asked for.
   * @param owner - whose skill
   * @param name - its name
   * @param version - a version number; the current one when omitted
   */
  get(owner: string, name: string, version?: number): Promise<StoredSkill | undefined>;
  /**
   * A skill's kept versions, newest first (empty when there is no such skill).
   * @param owner - whose skill
   * @param name - its name
   */
  versions(owner: string, name: string): Promise<SkillVersionInfo[]>;
  /**
   * Saves a new version of `draft.name` and makes it current.
   * @param owner - whose skill
   * @param draft - the checked skill
   * @param limits - count limits to enforce (`maxSkills`, `maxVersions`)
   * @returns the stored version
   * @throws CodeModeError `skill_invalid` when the owner already has `maxSkills` other skills
   */
  save(
    owner: string,
    draft: SkillDraft,
    limits: Pick<SkillLimits, "maxSkills" | "maxVersions">,
  ): Promise<StoredSkill>;
  /**
   * Optional: saves several drafts as {@link SkillStore.save} would, all or none: a refusal
   * (`maxSkills`) leaves the store as it was. An import uses it when the store has it; without
   * it, an import saves one by one after checking the count itself.
   * @param owner - whose skills
   * @param drafts - the checked skills, distinct names
   * @param limits - count limits to enforce (`maxSkills`, `maxVersions`)
   * @returns the stored versions, in the drafts' order
   * @throws CodeModeError `skill_invalid` when the owner would have more than `maxSkills` skills
   */
  saveAll?(
    owner: string,
    drafts: readonly SkillDraft[],
    limits: Pick<SkillLimits, "maxSkills" | "maxVersions">,
  ): Promise<StoredSkill[]>;
  /**
   * Deletes a skill with all its versions. Its name's version numbers are not reused: a later
   * save of the name continues after the highest it had.
   * @param owner - whose skill
   * @param name - its name
   * @returns whether there was one
   */
  delete(owner: string, name: string): Promise<boolean>;
  /**
   * Makes a kept version current again.
   * @param owner - whose skill
   * @param name - its name
   * @param version - the version to make current
   * @returns that version
   * @throws CodeModeError `skill_invalid` when the skill or the version is not kept
   */
  rollBack(owner: string, name: string, version: number): Promise<StoredSkill>;
  /**
   * Optional: counts a run's calls of skills and, when the run failed, keeps its error as each
   * skill's last error (what a listing shows as `uses` and `lastError`). A store may be told
   * late (the product writes once the answer is out), so a use of a version it no longer keeps
   * adds nothing (the skill was deleted, or deleted and saved again: a new skill that starts from
   * zero), and an error replaces only the error of a run that ended no later than this one.
   * @param owner - whose skills
   * @param uses - the skills and versions the run called
   * @param error - the run's error message, when it did not succeed
   * @param at - when the run ended (epoch ms); the store's clock when absent
   */
  recordUses?(
    owner: string,
    uses: readonly SkillUseRecord[],
    error?: string,
    at?: number,
  ): Promise<void>;
  /**
   * Optional: what a run of a program calling `names` reads before it starts, in one step: the
   * owner's listing and the current version of each listed skill the program calls, of those
   * the loaded ones call, and so on (`loadRunSkills` in run-skills.ts does it with `list` and
   * `get`; a store whose reads are round trips answers it at once). A store without it is read
   * with `list` and `get`.
   * @param owner - whose skills
   * @param names - the skill names the program calls literally
   */
  runSkills?(owner: string, names: readonly string[]): Promise<RunSkills>;
  /**
   * Optional: the {@link SkillSignature} of the current version of each of the owner's skills,
   * by name: what `skills.declarations()` reads, without reading any code. A store without it
   * is read with `get`, each skill's code and all.
   * @param owner - whose skills
   */
  signatures?(owner: string): Promise<SkillSignature[]>;
}

/** The skills one run reads before it starts ({@link SkillStore.runSkills}). */
export interface RunSkills {
  /** The owner's listing (names a save would take only). */
  listed: SkillSummary[];
  /** The current version of each listed skill the run calls, directly or through another. */
  loaded: StoredSkill[];
}
