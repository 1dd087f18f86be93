/**
 * `ApprovalLedgerStore`: the product's single-use approval ledger in a Durable Object's SQLite,
 * so an approved request is sent at most once even when MRTR rounds reach different isolates
 * (the in-memory default holds per isolate only).
 *
 * One instance (named `approvals`) serves the Worker: approvals happen at human pace, and a
 * Durable Object runs one call at a time, so two concurrent replays of the same round cannot
 * both claim an id. Rows are `claims(id PRIMARY KEY, expires_at)`; expired rows are deleted a
 * few at a time on each claim (an expired approval is refused before it is claimed).
 */
import { DurableObject } from "cloudflare:workers";
import type { ApprovalLedger } from "../codemode/approvals/approval-ledger";

/** The ledger's Durable Object: `claim` over RPC. */
export class ApprovalLedgerStore extends DurableObject<Cloudflare.Env> {
  private ready = false;

  private sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.ready) {
      sql.exec(
        "CREATE TABLE IF NOT EXISTS claims (id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)",
      );
      this.ready = true;
    }
    return sql;
  }

  /**
   * Claims an approval id: true the first time, false ever after.
   * @param id - the approval's random id
   * @param expiresAt - when the approval expires (epoch ms); the row is kept until then
   */
  claim(id: string, expiresAt: number): boolean {
    const sql = this.sql();
    sql.exec(
      "DELETE FROM claims WHERE id IN (SELECT id FROM claims WHERE expires_at < ? LIMIT 20)",
      Date.now(),
    );
    const inserted = sql
      .exec(
        "INSERT INTO claims (id, expires_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING RETURNING id",
        id,
        expiresAt,
      )
      .toArray();
    return inserted.length === 1;
  }
}

/**
 * An {@link ApprovalLedger} backed by the `APPROVAL_LEDGER` Durable Object.
 * @param namespace - the binding
 */
export function durableApprovalLedger(
  namespace: DurableObjectNamespace<ApprovalLedgerStore>,
): ApprovalLedger {
  return {
    claim: async (id, expiresAt) =>
      namespace.get(namespace.idFromName("approvals")).claim(id, expiresAt),
  };
}
