/**
 * `GET /api/runs` (one page, newest first: `?limit=&cursor=&outcome=&tool=`) and
 * `GET /api/runs/:id` (one run's whole record). The router protects both like `/mcp` and says
 * whose runs the reader may see ({@link RunsReader}).
 */
import { CodeModeError } from "../../errors";
import { HttpError } from "../errors/http-error";
import type { RunHistory } from "./run-history";

/** The listing's route; one run is at `${RUNS_ROUTE}/<id>`. */
export const RUNS_ROUTE = "/api/runs";

/**
 * Whose runs a reader may see: everyone's (no protection, or the API key: every holder is one
 * caller), only their own (an OAuth user), or none (callers bring their own upstream tokens and
 * nothing identifies them to us: pooling their programs and results would show one caller what
 * another's token fetched).
 */
export type RunsReader = { scope: "all" } | { scope: "own"; caller: string } | { scope: "none" };

/**
 * Answers a runs request.
 * @param request - a GET under {@link RUNS_ROUTE}
 * @param history - the run history, or undefined when `RUNS=off`
 * @param reader - whose runs this request may read
 * @throws HttpError for a request the history cannot answer (method, off, private, unknown run,
 *   bad query)
 */
export async function runsApi(
  request: Request,
  history: RunHistory | undefined,
  reader: RunsReader,
): Promise<Response> {
  if (request.method !== "GET")
    throw new HttpError(
      405,
      "method_not_allowed",
      `${request.method} is not allowed on the run history.`,
      "The run history is read with GET.",
      { allow: "GET" },
    );
  if (!history)
    throw new HttpError(
      404,
      "runs_off",
      "The run history is off (RUNS=off).",
      "Set RUNS=on to record runs.",
    );
  if (reader.scope === "none")
    throw new HttpError(
      403,
      "runs_private",
      "The run history cannot be read here: with FORWARD_CALLER_TOKEN=on every caller brings " +
        "its own token and none is identified to this server, so one caller would read " +
        "another's programs and results.",
      "Protect the server with OAuth (each user reads their own runs) or set RUNS=off.",
    );
  const own = reader.scope === "own" ? reader.caller : undefined;
  const url = new URL(request.url);
  const id = url.pathname.slice(RUNS_ROUTE.length + 1);
  if (id) {
    // A run id is ASCII (run-history.ts): one that is no percent-encoding names no run.
    const run = await history.get(decodedId(id), own);
    if (!run)
      throw new HttpError(
        404,
        "not_found",
        `No run "${id.slice(0, 200)}" (unknown, or pruned by retention).`,
        "List the runs with GET /api/runs and use an id from there.",
      );
    return Response.json(run);
  }
  const param = (name: string) => url.searchParams.get(name) ?? undefined;
  const limit = param("limit");
  try {
    const page = await history.list({
      ...(limit === undefined ? {} : { limit: Number(limit) }),
      ...(param("cursor") === undefined ? {} : { cursor: param("cursor")! }),
      ...(param("outcome") === undefined ? {} : { outcome: param("outcome")! }),
      ...(param("tool") === undefined ? {} : { tool: param("tool")! }),
      ...(own === undefined ? {} : { caller: own }),
    });
    return Response.json(page);
  } catch (error) {
    if (error instanceof CodeModeError && error.code === "invalid_query")
      throw new HttpError(
        400,
        "invalid_request",
        error.message,
        "Fix the query parameter the message names: limit (1–200), outcome, tool, or cursor (a page's nextCursor as is).",
      );
    throw error;
  }
}

/** The id as sent, percent-decoded; malformed encoding gives "" (no run has that id). */
function decodedId(id: string): string {
  try {
    return decodeURIComponent(id);
  } catch {
    return "";
  }
}
