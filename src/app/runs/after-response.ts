/**
 * Work that must not delay a response: the run history's write (#17). A job queued while a
 * response is being produced starts only once that response's body has been handed to the
 * runtime in full (or the client went away), so the write never competes with the answer it
 * records. Under `npm start` the store's Durable Object runs on the Worker's own thread: a
 * write issued while the result was still on its way made every recorded run ~3 ms slower.
 *
 * Records are never dropped: every job is under `waitUntil`, which keeps the request (and the
 * isolate) alive until the job is done, and a body that nobody reads releases its jobs after
 * {@link UNREAD_BODY_MS}. A job queued outside a response (an MCP task finishing in its
 * Durable Object) starts on the next turn of the event loop.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { waitUntil } from "cloudflare:workers";

/** How long a queued job waits for a body nobody reads before it starts anyway. */
export const UNREAD_BODY_MS = 5_000;

/** The jobs of one response, started once when its body is done. */
interface ResponseScope {
  jobs: (() => void)[];
  done: boolean;
}

const scopes = new AsyncLocalStorage<ResponseScope>();

/**
 * Runs `job` after the current response is delivered, keeping the request alive until it
 * settles. A failing job is the caller's to report; its rejection is swallowed here.
 * @param job - the work (e.g. a Durable Object write)
 * @param unreadMs - how long to wait for a body nobody reads (tests shorten it)
 */
export function afterResponse(job: () => Promise<void>, unreadMs = UNREAD_BODY_MS): void {
  const scope = scopes.getStore();
  waitUntil(
    new Promise<void>((start) => {
      if (!scope || scope.done) {
        setTimeout(start, 0);
        return;
      }
      // Safety net for a body left unread by an in-process caller: the record still gets out.
      const unread = setTimeout(start, unreadMs);
      scope.jobs.push(() => {
        clearTimeout(unread);
        start();
      });
    })
      .then(job)
      .catch(() => {}),
  );
}

/**
 * Produces a response with {@link afterResponse} jobs held until its body is done: read to its
 * end, cancelled (client gone) or failed. A response that queued no job and streams nothing is
 * returned as it is.
 * @param produce - makes the response (an MCP handler's `fetch`)
 */
export async function deliverThenRun(produce: () => Promise<Response>): Promise<Response> {
  const scope: ResponseScope = { jobs: [], done: false };
  const release = () => {
    if (scope.done) return;
    scope.done = true;
    for (const start of scope.jobs.splice(0)) start();
  };
  let response: Response;
  try {
    response = await scopes.run(scope, produce);
  } catch (error) {
    release();
    throw error;
  }
  // An event stream may still carry a run's result; a finished body cannot queue more jobs.
  const streaming = response.headers.get("content-type")?.includes("text/event-stream") === true;
  if (!response.body || (scope.jobs.length === 0 && !streaming)) {
    release();
    return response;
  }
  return new Response(watchEnd(response.body, release), response);
}

/** The same bytes, calling `end` once the last one was taken, or the stream was cancelled or failed. */
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
