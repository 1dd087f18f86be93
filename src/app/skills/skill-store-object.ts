/**
 * `SkillStoreObject`: the product's skills in a Durable Object's SQLite, one object per
 * principal (named by its owner key, skill-owner.ts), so one principal's skills are not even in
 * the same database as another's. The object holds a `SqlSkillStore` (its header documents the
 * tables) and answers one RPC, {@link SkillStoreObject.op}, whose answers carry a refusal as
 * data: an error thrown across RPC loses its class and code, and the API answers a refusal
 * (`skill_invalid`) with 400, anything else with 500.
 */
import { DurableObject } from "cloudflare:workers";
import { CodeModeError } from "../../errors";
import { SqlSkillStore } from "../../codemode/skills/sql-skill-store";
import type { SkillStore } from "../../codemode/skills/skill-store";
import { mayRegisterOwner } from "./token-owners";

/** One store method and its arguments, as sent over RPC. */
export type SkillOp = {
  [K in keyof Required<SkillStore>]: { method: K; args: Parameters<Required<SkillStore>[K]> };
}[keyof SkillStore];

/** A method's answer, or its refusal as data. */
export type SkillOpAnswer =
  | { ok: true; value: unknown }
  | { ok: false; code: string; message: string };

/** The skills of one principal. */
export class SkillStoreObject extends DurableObject<Cloudflare.Env> {
  private readonly store = new SqlSkillStore(this.ctx.storage.sql);

  /**
   * Runs one store method.
   * @param op - the method and its arguments
   */
  async op(op: SkillOp): Promise<SkillOpAnswer> {
    const store = this.store as Required<SkillStore>;
    try {
      const method = store[op.method] as (...args: unknown[]) => Promise<unknown>;
      const value = await method.apply(store, op.args);
      return { ok: true, value: value ?? null };
    } catch (error) {
      if (error instanceof CodeModeError)
        return { ok: false, code: error.code, message: error.message };
      throw error;
    }
  }

  /**
   * On the one object named {@link OWNER_DIRECTORY}: notes that `owner` has a store (before its
   * first save), so reads for owners it does not know need not reach (and create) theirs. A new
   * owner past `max` registered ones is not noted (token-owners.ts).
   * @param owner - the owner key
   * @param max - the most owners listed (`SKILLS_MAX_TOKEN_OWNERS`)
   * @returns whether `owner` is listed now
   */
  registerOwner(owner: string, max: number): boolean {
    const sql = this.directory();
    if (sql.exec("SELECT 1 FROM owners WHERE owner = ?", owner).toArray().length > 0) return true;
    const registered = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM owners").one().n;
    if (!mayRegisterOwner(registered, max)) return false;
    sql.exec("INSERT INTO owners (owner) VALUES (?)", owner);
    return true;
  }

  /**
   * On the one object named {@link OWNER_DIRECTORY}: whether `owner` was registered.
   * @param owner - the owner key
   */
  hasOwner(owner: string): boolean {
    return (
      this.directory().exec("SELECT 1 FROM owners WHERE owner = ?", owner).toArray().length > 0
    );
  }

  private directory(): SqlStorage {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS owners (owner TEXT PRIMARY KEY)");
    return sql;
  }
}

/**
 * The name of the `SKILLS` object that lists the owners of forwarded tokens who have saved (no
 * owner key starts with `#`): see durable-skill-store.ts.
 */
export const OWNER_DIRECTORY = "#owners";
