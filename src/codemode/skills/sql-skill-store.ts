/**
 * A {@link SkillStore} in a Durable Object's SQLite (`ctx.storage.sql`): the product's store.
 * Construct it inside the Durable Object that owns the database (one object per owner, or one
 * for all: every row carries its owner). Each method runs its statements synchronously, with no
 * `await` in between, so a Durable Object applies it as one step: two saves of one name cannot
 * both take the same version number.
 *
 * Key layout (created on first use):
 * - `skills (owner, name) → current, latest`: one row per skill; `current` is the version runs
 *   use, `latest` the highest saved (numbers are never reused, even after a roll back);
 * - `skill_versions (owner, name, version) → description, input, output, code, saved_at, tool`:
 *   the kept versions (JSON text for the schemas; `tool` null for a skill every tool may call,
 *   a column added to tables made before it);
 * - `skill_uses (owner, name) → calls, error, error_at, error_version`: calls by runs and the
 *   last failed run's error (`recordUses`), removed with the skill;
 * - `skill_deleted (owner, name) → latest`: the highest version a deleted skill had, so a skill
 *   saved again under its name continues the numbering (a run record naming "v2" names one
 *   version for ever); one small row per deleted name, removed when the name is saved again, at
 *   most {@link MAX_DELETED_NAMES} per owner (older ones fold into a floor row named "").
 *
 * Lifecycle and limits: the tables are created by the first write; reads of a database without
 * them answer "none" and create nothing (with `FORWARD_CALLER_TOKEN` every token is an owner, so
 * a listing must not leave a database behind). A save adds a version and makes it current,
 * refusing a new name past `maxSkills` and dropping the oldest versions that are not current
 * past `maxVersions`; {@link SqlSkillStore.saveAll} saves several or none; delete removes the
 * skill's rows at once (a run that starts later cannot load it); nothing expires.
 */
import type { SkillLimits } from "./skill-limits";
import { MAX_DELETED_NAMES, notKept } from "./memory-skill-store";
import { saveWithinCount } from "./skill-count";
import { loadRunSkills } from "./run-skills";
import type {
  JsonSchema,
  RunSkills,
  SkillDraft,
  SkillSignature,
  SkillStore,
  SkillSummary,
  SkillVersionInfo,
  SkillUseRecord,
  StoredSkill,
} from "./skill-store";

/** Characters of a run's error kept as a skill's last error. */
const MAX_ERROR_CHARS = 500;

/** The part of a Durable Object's `SqlStorage` the store uses. */
export interface SkillSql {
  exec(query: string, ...bindings: (string | number | null)[]): { toArray(): unknown[] };
}

interface VersionRow {
  name: string;
  version: number;
  description: string;
  input: string;
  output: string | null;
  code: string;
  saved_at: number;
  tool: string | null;
}

/** Skills in SQLite. */
export class SqlSkillStore implements SkillStore {
  private ready = false;

  /**
   * @param sql - the Durable Object's `ctx.storage.sql`
   * @param now - the clock (injected by tests)
   */
  constructor(
    private readonly sql: SkillSql,
    private readonly now: () => number = Date.now,
  ) {}

  /** {@inheritDoc SkillStore.list} */
  list(owner: string): Promise<SkillSummary[]> {
    const rows = this.read<{
      name: string;
      description: string;
      current: number;
      latest: number;
      tool: string | null;
      calls: number | null;
      error: string | null;
      error_at: number | null;
      error_version: number | null;
    }>(
      `SELECT s.name, v.description, s.current, s.latest, v.tool, u.calls, u.error, u.error_at,
       u.error_version FROM skills s
       JOIN skill_versions v ON v.owner = s.owner AND v.name = s.name AND v.version = s.current
       LEFT JOIN skill_uses u ON u.owner = s.owner AND u.name = s.name
       WHERE s.owner = ? ORDER BY s.name`,
      owner,
    );
    return Promise.resolve(
      rows.map((r) => ({
        name: r.name,
        description: r.description,
        version: r.current,
        latest: r.latest,
        ...(r.tool === null ? {} : { tool: r.tool }),
        uses: r.calls ?? 0,
        ...(r.error === null
          ? {}
          : {
              lastError: { message: r.error, at: r.error_at ?? 0, version: r.error_version ?? 0 },
            }),
      })),
    );
  }

  /** {@inheritDoc SkillStore.get} */
  get(owner: string, name: string, version?: number): Promise<StoredSkill | undefined> {
    const rows =
      version === undefined
        ? this.read<VersionRow>(
            `SELECT v.* FROM skills s JOIN skill_versions v
             ON v.owner = s.owner AND v.name = s.name AND v.version = s.current
             WHERE s.owner = ? AND s.name = ?`,
            owner,
            name,
          )
        : this.read<VersionRow>(
            "SELECT * FROM skill_versions WHERE owner = ? AND name = ? AND version = ?",
            owner,
            name,
            version,
          );
    const row = rows[0];
    return Promise.resolve(row && toSkill(row));
  }

  /** {@inheritDoc SkillStore.signatures} */
  signatures(owner: string): Promise<SkillSignature[]> {
    // Every column but the code: a declaration never shows it, and it is the large one.
    const rows = this.read<Omit<VersionRow, "code" | "version" | "saved_at">>(
      `SELECT v.name, v.description, v.input, v.output, v.tool FROM skills s
       JOIN skill_versions v ON v.owner = s.owner AND v.name = s.name AND v.version = s.current
       WHERE s.owner = ? ORDER BY s.name`,
      owner,
    );
    return Promise.resolve(
      rows.map((row) => ({
        name: row.name,
        description: row.description,
        input: JSON.parse(row.input) as JsonSchema,
        ...(row.output === null ? {} : { output: JSON.parse(row.output) as JsonSchema }),
        ...(row.tool === null || row.tool === undefined ? {} : { tool: row.tool }),
      })),
    );
  }

  /** {@inheritDoc SkillStore.versions} */
  versions(owner: string, name: string): Promise<SkillVersionInfo[]> {
    const current = this.current(owner, name);
    if (current === undefined) return Promise.resolve([]);
    const rows = this.read<{ version: number; saved_at: number }>(
      "SELECT version, saved_at FROM skill_versions WHERE owner = ? AND name = ? ORDER BY version DESC",
      owner,
      name,
    );
    return Promise.resolve(
      rows.map((r) => ({
        version: r.version,
        savedAt: r.saved_at,
        current: r.version === current,
      })),
    );
  }

  /** {@inheritDoc SkillStore.save} */
  save(
    owner: string,
    draft: SkillDraft,
    limits: Pick<SkillLimits, "maxSkills" | "maxVersions">,
  ): Promise<StoredSkill> {
    return this.saveAll(owner, [draft], limits).then(([stored]) => stored!);
  }

  /** {@inheritDoc SkillStore.saveAll} */
  saveAll(
    owner: string,
    drafts: readonly SkillDraft[],
    limits: Pick<SkillLimits, "maxSkills" | "maxVersions">,
  ): Promise<StoredSkill[]> {
    // Every check before the first write, and no `await` between the writes: the Durable
    // Object applies them as one step, so a refusal leaves nothing half-imported.
    const kept = new Set(
      this.read<{ name: string }>("SELECT name FROM skills WHERE owner = ?", owner).map(
        (r) => r.name,
      ),
    );
    return saveWithinCount(kept, drafts, limits, (draft) => this.write(owner, draft, limits));
  }

  /** Saves one checked draft (its count already allowed). */
  private write(
    owner: string,
    draft: SkillDraft,
    limits: Pick<SkillLimits, "maxVersions">,
  ): StoredSkill {
    const head = this.rows<{ latest: number }>(
      "SELECT latest FROM skills WHERE owner = ? AND name = ?",
      owner,
      draft.name,
    )[0];
    // A name deleted before continues its numbering.
    const gone = this.rows<{ latest: number }>(
      "SELECT latest FROM skill_deleted WHERE owner = ? AND name = ?",
      owner,
      draft.name,
    )[0];
    // A new name may have been deleted long ago, its row folded into the floor.
    const floor =
      head || gone
        ? undefined
        : this.rows<{ latest: number }>(
            "SELECT latest FROM skill_deleted WHERE owner = ? AND name = ''",
            owner,
          )[0];
    const version = Math.max(head?.latest ?? 0, gone?.latest ?? 0, floor?.latest ?? 0) + 1;
    const savedAt = this.now();
    this.sql.exec(
      `INSERT INTO skill_versions (owner, name, version, description, input, output, code, saved_at,
       tool) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      owner,
      draft.name,
      version,
      draft.description,
      JSON.stringify(draft.input),
      draft.output === undefined ? null : JSON.stringify(draft.output),
      draft.code,
      savedAt,
      draft.tool ?? null,
    );
    this.sql.exec(
      `INSERT INTO skills (owner, name, current, latest) VALUES (?, ?, ?, ?)
       ON CONFLICT (owner, name) DO UPDATE SET current = excluded.current, latest = excluded.latest`,
      owner,
      draft.name,
      version,
      version,
    );
    // Oldest first, never the current one (just saved: the newest).
    this.sql.exec(
      `DELETE FROM skill_versions WHERE owner = ? AND name = ? AND version IN (
         SELECT version FROM skill_versions WHERE owner = ? AND name = ?
         ORDER BY version DESC LIMIT -1 OFFSET ?)`,
      owner,
      draft.name,
      owner,
      draft.name,
      limits.maxVersions,
    );
    if (gone)
      this.sql.exec("DELETE FROM skill_deleted WHERE owner = ? AND name = ?", owner, draft.name);
    return { ...structuredClone(draft), version, savedAt };
  }

  /** {@inheritDoc SkillStore.delete} */
  delete(owner: string, name: string): Promise<boolean> {
    const latest = this.read<{ latest: number }>(
      "SELECT latest FROM skills WHERE owner = ? AND name = ?",
      owner,
      name,
    )[0]?.latest;
    if (latest === undefined) return Promise.resolve(false);
    this.sql.exec(
      "INSERT OR REPLACE INTO skill_deleted (owner, name, latest) VALUES (?, ?, ?)",
      owner,
      name,
      latest,
    );
    this.foldDeleted(owner);
    this.sql.exec("DELETE FROM skills WHERE owner = ? AND name = ?", owner, name);
    this.sql.exec("DELETE FROM skill_versions WHERE owner = ? AND name = ?", owner, name);
    this.sql.exec("DELETE FROM skill_uses WHERE owner = ? AND name = ?", owner, name);
    return Promise.resolve(true);
  }

  /** {@inheritDoc SkillStore.recordUses} */
  recordUses(
    owner: string,
    uses: readonly SkillUseRecord[],
    error?: string,
    at: number = this.now(),
  ): Promise<void> {
    for (const use of uses) {
      // Only versions still kept: a run that called a skill deleted meanwhile adds nothing, nor
      // to a skill saved again under its name since (its versions are new numbers). The count
      // may arrive a while after the run (durable-skill-store.ts writes it after the answer).
      if (!this.kept(owner, use.name, use.version)) continue;
      this.sql.exec(
        `INSERT INTO skill_uses (owner, name, calls) VALUES (?, ?, ?)
         ON CONFLICT (owner, name) DO UPDATE SET calls = calls + excluded.calls`,
        owner,
        use.name,
        use.calls,
      );
      // The last run's error, by when the runs ended: two runs' counts may land in either order.
      if (error !== undefined)
        this.sql.exec(
          `UPDATE skill_uses SET error = ?, error_at = ?, error_version = ?
           WHERE owner = ? AND name = ? AND (error_at IS NULL OR error_at <= ?)`,
          error.slice(0, MAX_ERROR_CHARS),
          at,
          use.version,
          owner,
          use.name,
          at,
        );
    }
    return Promise.resolve();
  }

  /** {@inheritDoc SkillStore.runSkills} */
  runSkills(owner: string, names: readonly string[]): Promise<RunSkills> {
    // The reads follow one another on resolved promises only (no I/O in between): inside the
    // Durable Object no other request comes between the listing and the code it reads.
    return loadRunSkills(this, owner, names);
  }

  /** {@inheritDoc SkillStore.rollBack} */
  rollBack(owner: string, name: string, version: number): Promise<StoredSkill> {
    const row = this.read<VersionRow>(
      "SELECT * FROM skill_versions WHERE owner = ? AND name = ? AND version = ?",
      owner,
      name,
      version,
    )[0];
    if (!row) return Promise.reject(notKept(name, version));
    this.sql.exec(
      "UPDATE skills SET current = ? WHERE owner = ? AND name = ?",
      version,
      owner,
      name,
    );
    return Promise.resolve(toSkill(row));
  }

  /** Whether `version` of the skill is kept (so the skill exists). */
  private kept(owner: string, name: string, version: number): boolean {
    return (
      this.read(
        "SELECT 1 FROM skill_versions WHERE owner = ? AND name = ? AND version = ?",
        owner,
        name,
        version,
      ).length > 0
    );
  }

  private current(owner: string, name: string): number | undefined {
    return this.read<{ current: number }>(
      "SELECT current FROM skills WHERE owner = ? AND name = ?",
      owner,
      name,
    )[0]?.current;
  }

  /** Rows of a write's query: the tables are created first. */
  private rows<T>(query: string, ...bindings: (string | number)[]): T[] {
    this.migrate();
    return this.sql.exec(query, ...bindings).toArray() as T[];
  }

  /** Folds the oldest deleted names past {@link MAX_DELETED_NAMES} into the owner's floor row. */
  private foldDeleted(owner: string): void {
    const old = this.rows<{ rowid: number; latest: number }>(
      `SELECT rowid, latest FROM skill_deleted WHERE owner = ? AND name != ''
       ORDER BY rowid DESC LIMIT -1 OFFSET ?`,
      owner,
      MAX_DELETED_NAMES,
    );
    if (old.length === 0) return;
    this.sql.exec(
      `INSERT INTO skill_deleted (owner, name, latest) VALUES (?, '', ?)
       ON CONFLICT (owner, name) DO UPDATE SET latest = max(latest, excluded.latest)`,
      owner,
      Math.max(...old.map((r) => r.latest)),
    );
    for (const { rowid } of old) this.sql.exec("DELETE FROM skill_deleted WHERE rowid = ?", rowid);
  }

  /** Rows of a read: none, and nothing created, while no write has made the tables. */
  private read<T>(query: string, ...bindings: (string | number)[]): T[] {
    if (!this.ready) {
      const made = this.sql
        .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'skills'")
        .toArray();
      if (made.length === 0) return [];
    }
    return this.rows<T>(query, ...bindings);
  }

  private migrate(): void {
    if (this.ready) return;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS skills (
      owner TEXT NOT NULL, name TEXT NOT NULL, current INTEGER NOT NULL, latest INTEGER NOT NULL,
      PRIMARY KEY (owner, name))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS skill_versions (
      owner TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,
      description TEXT NOT NULL, input TEXT NOT NULL, output TEXT, code TEXT NOT NULL,
      saved_at INTEGER NOT NULL, tool TEXT, PRIMARY KEY (owner, name, version))`);
    // Tables made before skills were tagged with their tool: every kept skill then works in
    // every tool (null), as it did.
    const columns = this.sql
      .exec("SELECT name FROM pragma_table_info('skill_versions') WHERE name = 'tool'")
      .toArray();
    if (columns.length === 0) this.sql.exec("ALTER TABLE skill_versions ADD COLUMN tool TEXT");
    this.sql.exec(`CREATE TABLE IF NOT EXISTS skill_uses (
      owner TEXT NOT NULL, name TEXT NOT NULL, calls INTEGER NOT NULL DEFAULT 0,
      error TEXT, error_at INTEGER, error_version INTEGER, PRIMARY KEY (owner, name))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS skill_deleted (
      owner TEXT NOT NULL, name TEXT NOT NULL, latest INTEGER NOT NULL,
      PRIMARY KEY (owner, name))`);
    this.ready = true;
  }
}

function toSkill(row: VersionRow): StoredSkill {
  return {
    name: row.name,
    description: row.description,
    input: JSON.parse(row.input) as JsonSchema,
    ...(row.output === null ? {} : { output: JSON.parse(row.output) as JsonSchema }),
    code: row.code,
    ...(row.tool === null || row.tool === undefined ? {} : { tool: row.tool }),
    version: row.version,
    savedAt: row.saved_at,
  };
}
