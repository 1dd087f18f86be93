/**
 * Work that must not delay a response: the run history's write (#17). A job queued while a
 * response is being produced starts only once that response's body has been handed to the
 * runtime in full (or the client went away), and then only when this isolate has served no
 * response for {@link QUIET_MS} (at most {@link MAX_DEFER_MS} after it was queued). Under
 * `npm start` the store's Durable Object runs on the Worker's own thread: a write issued while
 * the result was on its way made every recorded run ~3 ms slower, and one issued right after
 * it slowed the client's next call instead.
 *
 * Records are never dropped: every job is under `waitUntil`, which keeps the request (and the
 * isolate) alive until the job is done, and a body that nobody reads releases its jobs after
 * {@link UNREAD_BODY_MS}. A job queued outside a response (an MCP task finishing in its
 * Durable Object) waits only for the quiet.
 *
 * Requests share nothing but two numbers here (responses in progress, when the last one ended):
 * each job waits on its own request's timers, never on a promise of another request.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { waitUntil } from "cloudflare:workers";

/** How long a queued job waits for a body nobody reads before it starts anyway. */
export const UNREAD_BODY_MS = 5_000;
/** How long the isolate must have served no response before a job starts. */
export const QUIET_MS = 10;
/** The longest a job waits for the quiet: under steady traffic it goes anyway. */
export const MAX_DEFER_MS = 2_000;
/**
 * The longest wait between two looks for the quiet (see {@link nextLookMs}): how late a record
 * may start after the isolate went quiet, traded against the timers its wait costs.
 */
export const MAX_LOOK_MS = 320;

const scopes = new AsyncLocalStorage<ResponseScope>();
/** Responses of this isolate being produced or delivered. */
let busy = 0;
/** When the last of them was done (epoch ms). */
let lastDone = 0;

/**
 * The jobs of one response, started once when its body is done. A class, so that releasing is a
 * method shared by every response: a closure made per response is wrapped by the bundler's
 * `keepNames` (`__name`, a property definition on each new function), which alone was ~2 % of a
 * `ping`'s host CPU samples (issue #43). The callbacks handed out below are bare arrows passed
 * as arguments, which the bundler leaves unnamed.
 */
class ResponseScope {
  /** The queued jobs' starts. */
  readonly jobs: (() => void)[] = [];
  /** Whether the response's body is done (its jobs started). */
  done = false;
  /** The safety net's timer for a body nobody reads. */
  unread: ReturnType<typeof setTimeout> | undefined;

  /** Marks the response done and starts its jobs; only the first call counts. */
  release(): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.unread);
    busy--;
    lastDone = Date.now();
    for (const start of this.jobs.splice(0)) start();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `job` after the current response is delivered, once the isolate is quiet, keeping the
 * request alive until it settles. A failing job is the caller's to report; its rejection is
 * swallowed here.
 * @param job - the work (e.g. a Durable Object write)
 */
export function afterResponse(job: () => Promise<void>): void {
  const scope = scopes.getStore();
  const queued = Date.now();
  waitUntil(
    new Promise<void>((start) => (scope && !scope.done ? scope.jobs.push(start) : start()))
      .then(() => whenQuiet(queued))
      .then(job)
      .catch(() => {}),
  );
}

/**
 * Produces a response with {@link afterResponse} jobs held until its body is done: read to its
 * end, cancelled (client gone) or failed. A response that queued no job and streams nothing is
 * returned as it is.
 * @param produce - makes the response (an MCP handler's `fetch`)
 * @param unreadMs - how long to wait for a body nobody reads (tests shorten it)
 */
export async function deliverThenRun(
  produce: () => Promise<Response>,
  unreadMs = UNREAD_BODY_MS,
): Promise<Response> {
  const scope = new ResponseScope();
  busy++;
  let response: Response;
  try {
    response = await scopes.run(scope, produce);
  } catch (error) {
    scope.release();
    throw error;
  }
  // An event stream may still carry a run's result; a finished body cannot queue more jobs.
  const streaming = response.headers.get("content-type")?.includes("text/event-stream") === true;
  if (!response.body || (scope.jobs.length === 0 && !streaming)) {
    scope.release();
    return response;
  }
  // Safety net for a body left unread by an in-process caller: the record still gets out.
  scope.unread = setTimeout(() => scope.release(), unreadMs);
  return streaming
    ? new Response(
        watchEnd(response.body, () => scope.release()),
        response,
      )
    : await deliverBytes(response, () => scope.release());
}

/** Resolves once no response was in progress for {@link QUIET_MS}, or at the deadline. */
async function whenQuiet(queued: number): Promise<void> {
  // At least one turn of the event loop: the runtime writes out what it just took first.
  await sleep(0);
  let wait: number | undefined;
  for (;;) {
    const now = Date.now();
    const idle = busy === 0 ? now - lastDone : 0;
    if (idle >= QUIET_MS || now - queued >= MAX_DEFER_MS) return;
    wait = nextLookMs(wait, now - queued);
    await sleep(busy === 0 ? Math.min(QUIET_MS - idle, wait) : wait);
  }
}

/**
 * How long a job waits before its next look for the quiet while responses keep coming: the
 * previous wait doubled (10, 20, 40, … ms), at most {@link MAX_LOOK_MS}, and never past the
 * job's deadline ({@link MAX_DEFER_MS} after it was queued). Every look is a timer of the job's
 * own request: with one look every 10 ms, 16 clients (~160 jobs waiting at once) set 16,000
 * timers a second (~9 % of the host's thread); with looks capped at 80 ms a job under steady
 * traffic still took ~30 of them, ~3.5 % of a trivial `execute`'s host CPU samples (issue #43).
 * Capped at 320 ms it takes ~10, and starts at most 320 ms after the quiet began.
 * @param previous - the last wait (undefined before the first look)
 * @param waited - ms since the job was queued
 */
export function nextLookMs(previous: number | undefined, waited: number): number {
  const wait = previous === undefined ? QUIET_MS : Math.min(previous * 2, MAX_LOOK_MS);
  return Math.max(0, Math.min(wait, MAX_DEFER_MS - waited));
}

/**
 * A whole (non-streamed) answer, resent through a fixed-length stream so it keeps its
 * Content-Length on the wire (a plain JS stream would turn it chunked, with a closing chunk
 * written only after `end`). An identity stream holds nothing: the write settles once the
 * runtime has taken every byte, or fails when the client is gone.
 */
async function deliverBytes(response: Response, end: () => void): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength === 0) {
    end();
    return new Response(null, response);
  }
  const { readable, writable } = new FixedLengthStream(bytes.byteLength);
  const writer = writable.getWriter();
  void writer
    .write(bytes)
    .then(() => writer.close())
    .then(end, end);
  return new Response(readable, response);
}

/** An event stream's bytes, calling `end` once the last was taken, or on cancel or failure. */
function watchEnd(body: ReadableStream<Uint8Array>, end: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (!chunk.done) return controller.enqueue(chunk.value);
        controller.close();
        end();
      } catch (error) {
        controller.error(error);
        end();
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason);
    },
  });
}
