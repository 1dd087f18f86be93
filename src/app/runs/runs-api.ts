/**
 * `GET /api/runs` (one page, newest first: `?limit=&cursor=&outcome=&tool=`) and
 * `GET /api/runs/:id` (one run's whole record). The router protects both like `/mcp`.
 */
import { CodeModeError } from "../../errors";
import type { RunHistory } from "./run-history";

/** The listing's route; one run is at `${RUNS_ROUTE}/<id>`. */
export const RUNS_ROUTE = "/api/runs";

/**
 * Answers a runs request.
 * @param request - a GET under {@link RUNS_ROUTE}
 * @param history - the run history, or undefined when `RUNS=off`
 */
export async function runsApi(
  request: Request,
  history: RunHistory | undefined,
): Promise<Response> {
  if (request.method !== "GET")
    return Response.json(
      {
        error: "method_not_allowed",
        message: "The run history is read with GET.",
      },
      { status: 405, headers: { allow: "GET" } },
    );
  if (!history)
    return Response.json(
      {
        error: "runs_off",
        message: "The run history is off (RUNS=off). Set RUNS=on to record runs.",
      },
      { status: 404 },
    );
  const url = new URL(request.url);
  const id = url.pathname.slice(RUNS_ROUTE.length + 1);
  if (id) {
    const run = await history.get(decodeURIComponent(id));
    return run
      ? Response.json(run)
      : Response.json(
          {
            error: "not_found",
            message: `No run "${id}" (unknown, or pruned by retention).`,
          },
          { status: 404 },
        );
  }
  const param = (name: string) => url.searchParams.get(name) ?? undefined;
  const limit = param("limit");
  try {
    const page = await history.list({
      ...(limit === undefined ? {} : { limit: Number(limit) }),
      ...(param("cursor") === undefined ? {} : { cursor: param("cursor")! }),
      ...(param("outcome") === undefined ? {} : { outcome: param("outcome")! }),
      ...(param("tool") === undefined ? {} : { tool: param("tool")! }),
    });
    return Response.json(page);
  } catch (error) {
    if (error instanceof CodeModeError && error.code === "invalid_query")
      return Response.json({ error: "bad_query", message: error.message }, { status: 400 });
    throw error;
  }
}
