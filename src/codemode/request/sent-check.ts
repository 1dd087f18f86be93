/**
 * The search of what a program sends (an API request, an upstream tool's arguments) for the
 * credential, bounded per run (issue #40). The host adds the credential itself, so what a program
 * sends never needs it, and a program that pieced it together must not send it (issue #41): the
 * request or the call is searched like a response and refused when the credential is in it.
 *
 * Why bounded: the program chooses what it sends, how large (up to `maxCallBytes` a call) and how
 * often. One synchronous search of a few MB of `%25` escapes holds the local host's thread, which
 * serves every client, for seconds; a program sending many such bodies held it for as long as it
 * liked. So, as for response bodies (./api-response.ts):
 * - a text of {@link SLICED_BODY} or more is searched in bounded slices (../redaction/slices.ts),
 *   the thread given to other tasks between slices, one such search at a time per run (a flood of
 *   concurrent sends is queued, not searched side by side: one working set at a time);
 * - every search is charged to the run: past {@link MAX_SENT_CHARS_PER_RUN} characters searched,
 *   a send is refused unsearched with a `LimitError` (nothing sent);
 * - a search still queued or under way when the run ends stops at its next pause.
 * What is found is exactly what the synchronous search finds: the sliced search is the same
 * passes (test/unit/codemode/redaction/redaction-slices.test.ts).
 */
import { SandboxError } from "../../errors";
import { REDACTED, type Redactor } from "../redaction/redaction";
import { yieldThread } from "../redaction/slices";
import { SLICED_BODY } from "./api-response";
import { collectingPause, collectionBudget, type CollectionBudget } from "./large-body-collection";

/**
 * Characters of what one run sends that the host searches for the credential, at most (16 calls
 * of the default `maxCallBytes`, 4 MiB each; a large body's search costs ~60–125 ms of a core per
 * MB: bench/README.md). Past it, sends are refused: the program chose every one of them.
 */
export const MAX_SENT_CHARS_PER_RUN = 64 * 1_048_576;

/** The per-run search of what a program sends; build one per run with {@link sentCheck}. */
export interface SentCheck {
  /** Characters (or bytes) charged to the run so far. */
  readonly charged: number;
  /** Pauses taken so far by this run's sliced searches (and {@link SentCheck.pause}). */
  readonly pauses: number;
  /**
   * `redactor.text(value)`: at once when `value` is shorter than {@link SLICED_BODY}, else in
   * bounded slices after the run's earlier sliced searches. Charged to the run first.
   * @param value - the text to search
   * @param what - the call being checked, for the refusal (e.g. `codemode.request()`)
   * @param signal - the run's: a sliced search stops at its next pause once it is aborted
   * @throws SandboxError `LimitError` past the run's budget (nothing searched)
   */
  text(value: string, what: string, signal?: AbortSignal): string | Promise<string>;
  /**
   * `redactor.bytes(value)`, the same way as {@link SentCheck.text} (charged a character a byte).
   * @param value - the bytes to search
   * @param what - the call being checked, for the refusal
   * @param signal - the run's
   */
  bytes(value: Uint8Array, what: string, signal?: AbortSignal): Uint8Array | Promise<Uint8Array>;
  /**
   * Gives the thread away (a pause of the run's sliced searches): for a caller's own walk over
   * many small values, each searched at once.
   * @param signal - the run's: throws once it is aborted
   */
  pause(signal?: AbortSignal): Promise<void>;
}

/** Options of {@link sentCheck}; the defaults are the host's. */
export interface SentCheckOptions {
  /** The run's forced collections around large searches (./large-body-collection.ts). */
  collections?: CollectionBudget;
  /** How the thread is given away at a pause (tests count them). */
  yieldThread?: () => Promise<void>;
  /** The run's budget in characters (default {@link MAX_SENT_CHARS_PER_RUN}). */
  maxChars?: number;
}

/**
 * The search of what one run sends (see the file header).
 * @param redactor - the configured secrets (inactive: nothing is searched or charged)
 * @param options - collections, pause and budget
 */
export function sentCheck(redactor: Redactor, options: SentCheckOptions = {}): SentCheck {
  const collections = options.collections ?? collectionBudget();
  const give = options.yieldThread ?? yieldThread;
  const max = options.maxChars ?? MAX_SENT_CHARS_PER_RUN;
  let charged = 0;
  let pauses = 0;
  // The run's sliced searches, one after another.
  let queue: Promise<unknown> = Promise.resolve();
  const charge = (size: number, what: string) => {
    if (charged + size > max)
      throw new SandboxError(
        "LimitError",
        `${what} was not sent: this run sent more than the ${max} characters the host searches for the credential per run (paths, queries, headers, bodies and tool arguments together). Nothing was sent; send large data over several runs, or only the data the API needs.`,
      );
    charged += size;
  };
  const pauseFor = (size: number, signal: AbortSignal | undefined) => {
    const inner = collectingPause(size, give, collections);
    return async () => {
      ended(signal);
      pauses++;
      await inner();
      ended(signal);
    };
  };
  const inTurn = <T>(search: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
    const turn = queue.then(() => {
      ended(signal);
      return search();
    });
    queue = turn.catch(() => undefined);
    return turn;
  };
  return {
    get charged() {
      return charged;
    },
    get pauses() {
      return pauses;
    },
    text(value, what, signal) {
      if (!redactor.active) return value;
      charge(value.length, what);
      if (value.length < SLICED_BODY) return redactor.text(value);
      const pause = pauseFor(value.length, signal);
      return inTurn(
        async () => (await redactor.cleanTextInSlices(value, pause)) ?? REDACTED,
        signal,
      );
    },
    bytes(value, what, signal) {
      if (!redactor.active) return value;
      charge(value.byteLength, what);
      if (value.byteLength < SLICED_BODY) return redactor.bytes(value);
      const pause = pauseFor(value.byteLength, signal);
      return inTurn(
        async () =>
          (await redactor.cleanBytesInSlices(value, undefined, pause)) ?? MARKER_BYTES.slice(),
        signal,
      );
    },
    async pause(signal) {
      ended(signal);
      pauses++;
      await give();
      ended(signal);
    },
  };
}

/** What `redactor.bytes` answers for bytes that cannot be made safe: the marker, one byte each. */
const MARKER_BYTES = new TextEncoder().encode(REDACTED);

/** Throws when the run ended: what it would have sent goes nowhere now. */
function ended(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new Error(
      "The run ended before what it sends was checked for the credential; nothing was sent.",
    );
}
