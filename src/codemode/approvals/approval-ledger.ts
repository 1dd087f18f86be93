/**
 * Single-use approvals: the memory that a stateless MRTR handler lacks. Each approval the user
 * gives carries a random id sealed into the `requestState`; sending the approved request first
 * claims that id here, so a replayed round (same state, same "accept") finds it claimed and
 * sends nothing.
 */
import { CodeModeError } from "../../errors";

/** Where approval ids are claimed, once each. */
export interface ApprovalLedger {
  /**
   * Claims an approval id. Resolves true the first time for an id, false ever after (until
   * `expiresAt`, after which the approval itself is refused as expired and the id may be
   * forgotten). Throws when it cannot decide: the request is then refused, never sent.
   * @param id - the approval's random id (from the sealed state)
   * @param expiresAt - when the approval expires, in ms since the epoch
   */
  claim(id: string, expiresAt: number): Promise<boolean>;
}

/** Most ids a {@link MemoryApprovalLedger} holds; beyond it new claims are refused (fail closed). */
const MAX_ENTRIES = 100_000;

/**
 * The default ledger: claimed ids in this isolate's memory until they expire. Single use then
 * holds per isolate only: a round replayed to another isolate (another Worker instance, or after
 * an eviction) is not recognized. Use a shared ledger (the product's Durable Object ledger)
 * where rounds may reach different isolates.
 */
export class MemoryApprovalLedger implements ApprovalLedger {
  readonly #claimed = new Map<string, number>();

  /** {@inheritDoc ApprovalLedger.claim} */
  async claim(id: string, expiresAt: number): Promise<boolean> {
    const now = Date.now();
    if (this.#claimed.size >= MAX_ENTRIES)
      for (const [key, expiry] of this.#claimed) if (expiry < now) this.#claimed.delete(key);
    if (this.#claimed.has(id)) return false;
    if (this.#claimed.size >= MAX_ENTRIES)
      throw new CodeModeError(
        "approvals_busy",
        "too many approvals in flight in this isolate; ask again later",
      );
    this.#claimed.set(id, expiresAt);
    return true;
  }
}

/** The per-isolate ledger `openApiMcpServer` uses when none is given. */
export const isolateApprovalLedger: ApprovalLedger = new MemoryApprovalLedger();
