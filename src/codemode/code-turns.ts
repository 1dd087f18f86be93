/**
 * The code one POST may have prepared, and the turns it is prepared in (issue #40). Preparing a
 * program (parse, TypeScript retry, instrumentation: executor/prepare-code.ts) costs the host
 * about 1 s of CPU per MB, in one piece. A 2025-03-26 JSON-RPC batch carries many `tools/call`
 * members in one POST, which the SDK starts back to back in one task: 60 programs of 64 KiB held
 * the host thread 5–6 s (every other client's requests waited), and one connection got 60 runs
 * past the front's connection cap. Each POST builds its own server, so a {@link CodeTurns} made
 * with the server is the POST's: its members draw from one budget of characters, and each after
 * the first starts after a turn of the event loop, so other requests are served in between.
 *
 * A server may also live longer than one POST: an `McpAgent` session builds it once and serves
 * every later request with it. So the budget is the programs that arrive together (a batch's
 * members reach the server in one task) and is given back a turn after the first of them
 * arrived: without that, a session's 262,145th character of code, over any number of requests,
 * was refused for the rest of the session.
 *
 * Why characters and not a count of calls: the host's cost is linear in the code's length, so a
 * batch of many short programs costs little, while a count would have to be small enough for
 * 64 KiB programs. Why {@link BATCH_CODE_LIMITS} limits: one member at the limit always fits,
 * and a batch's hold of the host stays that of a few programs (~0.25 s of CPU at the default
 * 65,536 characters), whatever the body's size.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { DEFAULT_LIMITS } from "../executor/limits";
import { emptyCounters } from "../executor/run-start";
import type { Executor, ExecutorLimits } from "../executor/types";
import { outcomeToToolResult } from "./outcome-result";

/** How many programs at the per-call `maxCodeChars` one POST may carry in all. */
export const BATCH_CODE_LIMITS = 4;

/** Waits one turn of the event loop (a task, not a microtask: other requests' events run). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * One POST's code budget and turns, shared by its code tools (`code`; `search` and `execute`).
 */
export class CodeTurns {
  #spent = 0;
  #members = 0;
  /** Settles when the latest admitted member's turn has come. */
  #last: Promise<void> = Promise.resolve();
  /** Programs are arriving together: the budget is given back when this turn ends. */
  #together = false;

  /**
   * @param maxChars - the characters of code the POST may carry in all
   * @param turn - how a member waits for the next turn (tests count the calls)
   * @param together - how long programs count as arriving together, from the first of them
   *   (default one turn: a batch's members all arrive within it; tests end it by hand)
   */
  constructor(
    readonly maxChars: number,
    private readonly turn: () => Promise<void> = nextTurn,
    private readonly together: () => Promise<void> = nextTurn,
  ) {}

  /**
   * Admits one call's program: refused when the POST's budget is spent, else resolved when its
   * turn has come (at once for the first; each later one a turn after the one before it).
   * @param code - the call's program (already within the per-call limit)
   * @returns an `isError` result naming the limit, or undefined when the call may go on
   */
  async admit(code: string): Promise<CallToolResult | undefined> {
    if (!this.#together) {
      this.#together = true;
      void this.together().then(() => {
        this.#together = false;
        this.#spent = 0;
        this.#members = 0;
      });
    }
    if (this.#spent + code.length > this.maxChars) return this.refusal(code.length);
    this.#spent += code.length;
    this.#members++;
    if (this.#members === 1) return undefined;
    const mine = this.#last.then(this.turn);
    this.#last = mine;
    await mine;
    return undefined;
  }

  private refusal(length: number): CallToolResult {
    const left = this.maxChars - this.#spent;
    // The shape and wording of the per-call limit's answer (long-code.ts), so a model reads both
    // the same way.
    return outcomeToToolResult({
      ...emptyCounters(),
      status: "error",
      error: {
        name: "CodeModeError",
        message:
          `This request's programs may hold ${this.maxChars} characters of code in all ` +
          `(${BATCH_CODE_LIMITS} × maxCodeChars); this program is ${length} characters and ` +
          `${left} are left. Send it in a request of its own, or fewer programs in one batch.`,
      },
      durationMs: 0,
    });
  }
}

/**
 * The turns for one POST's server, sized from the tools' per-call `maxCodeChars` (as
 * long-code.ts reads it: the tool's limits, else the executor's, else the default).
 * @param executor - the tools' executor
 * @param limits - the tools' limits (overrides of the executor's)
 * @returns a fresh {@link CodeTurns}
 */
export function codeTurns(
  executor: Pick<Executor, "limits">,
  limits: Partial<ExecutorLimits>,
): CodeTurns {
  const max = limits.maxCodeChars ?? executor.limits?.maxCodeChars ?? DEFAULT_LIMITS.maxCodeChars;
  return new CodeTurns(max * BATCH_CODE_LIMITS);
}
