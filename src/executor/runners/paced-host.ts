/**
 * The host bridge as a program on a runner reaches it: the run's calls paced on their way to the
 * host ({@link PacedHost}), with the bounds of what may wait in the runner. The runner
 * (sandbox-runner.ts) hands the sandbox one per run; every check stays on the host.
 */
import { RpcTarget } from "cloudflare:workers";

/**
 * Host calls of one run sent on to the host at once. A program that starts 1,000 requests at
 * once (`Promise.all` over a list) used to land 1,000 RPC messages on the host in one burst,
 * handled back to back in one turn of its event loop: every other client waited behind it
 * (0.6–0.9 s for a `/health`, seconds on a loaded machine). In flights of 32 the host takes them
 * in small turns with other requests between; 32 keeps the host's own I/O (API calls) overlapped.
 * The flight is the runner's, shared by its runs ({@link flightFor}): a run alone has all of it.
 */
export const HOST_CALLS_IN_FLIGHT = 32;

/**
 * Host calls one run may have at the host at once while `runs` runs are under way on its runner:
 * the runner's {@link HOST_CALLS_IN_FLIGHT} shared between them, at least one each. A flight per
 * run bounded nothing across runs: one client's 40 programs each starting 990 calls at once held
 * 1,280 calls at the host, and another client's trivial `search` waited up to 6.7 s behind them
 * (attack26; bench/README.md). Shared, a runner sends about 32 (or one per run), and the host
 * serves each runner's calls in small turns again. Read at each call of the run: a run whose
 * share shrank sends its next call once its calls at the host are under the new share, one that
 * grew sends more as its own calls end (a run's waiting calls are released only by its own
 * calls: never a promise of another run's request).
 * @param runs - runs under way on the runner (this one included; below 1 counts as 1)
 * @returns the run's share, from 1 to {@link HOST_CALLS_IN_FLIGHT}
 */
export function flightFor(runs: number): number {
  const sharing = Number.isFinite(runs) && runs > 1 ? Math.floor(runs) : 1;
  return Math.max(1, Math.floor(HOST_CALLS_IN_FLIGHT / sharing));
}

/** What {@link PacedHost} calls on: the host bridge stub a run gets (tracked-host.ts). */
export interface HostCalls {
  call(
    namespace: unknown,
    name: unknown,
    argsText: unknown,
    logs: unknown,
    argsBytes?: unknown,
  ): Promise<unknown>;
  /** Records the run's host call limit as hit and answers the refusal (tracked-host.ts). */
  overLimit?(namespace: unknown, name: unknown): Promise<unknown> | unknown;
  /** Counts a call refused for waiting argument text and answers the refusal (tracked-host.ts). */
  overWaiting?(namespace: unknown, name: unknown): Promise<unknown> | unknown;
}

/**
 * Calls of one run that may wait in the runner for a slot when the run's request does not say
 * how many host calls the run may make (a host older than `maxHostCalls` in the request): what
 * the host bounds for calls under way (`maxHostCalls`, `MAX_IN_FLIGHT_CHARS`) it cannot bound for
 * calls that have not reached it yet, so a program flooding calls with large arguments would
 * fill the runner that other runs share. A request that names its `maxHostCalls` bounds the
 * waiting calls by that instead ({@link waitingCallsFor}).
 */
export const MAX_WAITING_CALLS = 1_000;
/**
 * Argument text (UTF-16 units) the waiting calls of one run may hold, each call also charged
 * {@link WAITING_CALL_CHARS} for its own keeping (see above).
 */
export const MAX_WAITING_CHARS = 16 * 1_048_576;
/**
 * What a waiting call costs the bytes bound besides its arguments (its promise, its RPC message):
 * a run allowed millions of host calls still cannot park more than 65,536 empty ones here.
 */
export const WAITING_CALL_CHARS = 256;

/**
 * How many calls of a run may wait in the runner: the run's own `maxHostCalls`, read from the
 * request the host built (a run allowed 5,000 calls may queue them; one allowed 100 never needs
 * 1,000). Refusing a call past it refuses nothing the host would allow: with this many waiting
 * and {@link HOST_CALLS_IN_FLIGHT} at the host, the call is past the run's limit anyway.
 * @param request - the run's request (the host's, passed on unchanged)
 * @returns the bound, or {@link MAX_WAITING_CALLS} when the request names none
 */
export function waitingCallsFor(request: unknown): number {
  const limit =
    typeof request === "object" && request !== null
      ? (request as { maxHostCalls?: unknown }).maxHostCalls
      : undefined;
  return typeof limit === "number" && Number.isSafeInteger(limit) && limit >= 1
    ? limit
    : MAX_WAITING_CALLS;
}

/**
 * The host bridge as the sandbox sees it through a runner: the same `call`, at most the run's
 * share of {@link HOST_CALLS_IN_FLIGHT} ({@link flightFor}) at the host at a time, in the order
 * they were made,
 * and at most the run's `maxHostCalls` waiting ({@link waitingCallsFor}), holding at most
 * {@link MAX_WAITING_CHARS} of arguments. Only pacing: every check stays on the host.
 */
export class PacedHost extends RpcTarget {
  #host: HostCalls;
  #maxWaiting: number;
  #runs: () => number;
  #running = 0;
  #waiting: (() => void)[] = [];
  #waitingChars = 0;
  #refusedWaiting = 0;
  #limitReply: Promise<unknown> | undefined;

  /**
   * @param host - the host bridge stub
   * @param maxWaiting - calls that may wait for a slot (the run's `maxHostCalls`)
   * @param runs - runs under way on the runner now, this one included (the runner's count:
   *   runner-life.ts); default one, the run alone
   */
  constructor(host: HostCalls, maxWaiting: number = MAX_WAITING_CALLS, runs: () => number = one) {
    super();
    this.#host = host;
    this.#maxWaiting = maxWaiting;
    this.#runs = runs;
  }

  async call(
    namespace: unknown,
    name: unknown,
    argsText: unknown,
    logs: unknown,
    argsBytes?: unknown,
  ): Promise<unknown> {
    if (this.#running >= flightFor(this.#runs()) || this.#waiting.length > 0) {
      // Only the text's length and the binary values' sizes are read: anything else the program
      // sent is the host's to check.
      if (this.#waiting.length >= this.#maxWaiting) return this.#overLimit(namespace, name);
      const chars =
        (typeof argsText === "string" ? argsText.length : 0) +
        bufferBytes(argsBytes) +
        WAITING_CALL_CHARS;
      if (this.#waitingChars + chars > MAX_WAITING_CHARS) return this.#overWaiting(namespace, name);
      this.#waitingChars += chars;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
      this.#waitingChars -= chars;
    } else this.#running++;
    try {
      return await (argsBytes === undefined
        ? this.#host.call(namespace, name, argsText, logs)
        : this.#host.call(namespace, name, argsText, logs, argsBytes));
    } finally {
      // The slot goes to the next waiting calls, as many as the run's share holds now (at least
      // one while any waits: a run's waiting calls are released only here, by its own calls).
      this.#running--;
      const share = flightFor(this.#runs());
      while (this.#waiting.length > 0 && (this.#running < share || this.#running === 0)) {
        this.#running++;
        this.#waiting.shift()?.();
      }
    }
  }

  /**
   * A call that would keep more than {@link MAX_WAITING_CHARS} of arguments waiting: refused
   * here (the arguments never leave the runner), and the host is told, so it counts the call as
   * it counts one it refuses itself for the text of calls still running (the same message, the
   * same count toward `maxHostCalls`, with or without a runner).
   */
  async #overWaiting(namespace: unknown, name: unknown): Promise<unknown> {
    // Each one told costs the host a round trip and counts as one of the run's calls: past
    // `maxHostCalls` of them the host's answer is its call limit, shared like any other, so a
    // program looping on refused calls cannot make this runner flood the host.
    if (this.#refusedWaiting >= this.#maxWaiting) return this.#overLimit(namespace, name);
    this.#refusedWaiting++;
    const own = {
      error: {
        name: "LimitError",
        message: `Too many host calls waiting at once (holding more than ${MAX_WAITING_CHARS} characters of arguments): await some calls before starting more.`,
      },
    };
    try {
      return (await this.#host.overWaiting?.(namespace, name)) ?? own;
    } catch {
      return own;
    }
  }

  /**
   * A call past the run's `maxHostCalls` (that many already wait, besides those at the host):
   * the host would refuse it, so it is refused here, and the host is told once so the run ends
   * as `limit` with the host's own message, as it does without a runner. Later ones share that
   * answer (one host round trip, not one per call).
   */
  #overLimit(namespace: unknown, name: unknown): Promise<unknown> {
    this.#limitReply ??= (async () => {
      const own = {
        error: {
          name: "LimitError",
          message: `Host call limit of ${this.#maxWaiting} reached at a host function: batch the work into fewer calls or ask the host for a larger maxHostCalls.`,
        },
        spent: true,
      };
      try {
        return (await this.#host.overLimit?.(namespace, name)) ?? own;
      } catch {
        return own;
      }
    })();
    return this.#limitReply;
  }
}

/** The default count of runs under way: the run alone. */
const one = () => 1;

const bufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")?.get;
const typedLength = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype) as object,
  "byteLength",
)?.get;

/**
 * Bytes of the binary values a call carries beside its text (counted a unit each, as its text's
 * characters are), by the engine's own accessors: a value that is none of an ArrayBuffer or a
 * view counts nothing here, and the host refuses it. Past {@link MAX_WAITING_CHARS} the count
 * stops: the call waits for nothing then.
 */
function bufferBytes(argsBytes: unknown): number {
  if (!Array.isArray(argsBytes)) return 0;
  let bytes = 0;
  for (let i = 0; i < argsBytes.length && bytes <= MAX_WAITING_CHARS; i++) {
    bytes += byteLength(argsBytes[i]) + WAITING_CALL_CHARS;
  }
  return bytes;
}

function byteLength(value: unknown): number {
  for (const get of [bufferLength, typedLength]) {
    try {
      if (get) return Reflect.apply(get, value, []) as number;
    } catch {
      // not this kind
    }
  }
  return 0;
}
