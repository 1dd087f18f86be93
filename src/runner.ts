/**
 * The sandbox runner Worker of the local server: wiring only. `npm start` and `code-mode-mcp`
 * run it in workerd processes of its own beside the host runtime (docs/local-runtime.md), so a
 * program that blocks its thread never blocks the host. Deployed, there is no runner: the
 * platform already runs every Dynamic Worker apart.
 */
import { runnerLife } from "./executor/runners/runner-life";

export { SandboxRunner } from "./executor/runners/sandbox-runner";

export default {
  /**
   * `/health` answers while the runner's thread is free (the supervisor's sign of progress),
   * with the runner's counts of runs begun and under way; `POST /retire` makes it begin no more
   * runs (the supervisor then waits for those under way and replaces it: runner-life.ts). Both
   * on the runner's loopback port, which only the local server uses.
   */
  fetch(request: Request): Response {
    const path = new URL(request.url).pathname;
    if (path === "/retire" && request.method === "POST") {
      runnerLife.retire();
      return new Response(null, { status: 204, headers: runnerLife.headers() });
    }
    return path === "/health"
      ? new Response("ok", { headers: { "content-type": "text/plain", ...runnerLife.headers() } })
      : new Response("A sandbox runner of the local server: it serves Workers RPC only.", {
          status: 404,
        });
  },
} satisfies ExportedHandler;
