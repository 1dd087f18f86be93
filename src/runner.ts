/**
 * The sandbox runner Worker of the local server: wiring only. `npm start` and `code-mode-mcp`
 * run it in workerd processes of its own beside the host runtime (docs/local-runtime.md), so a
 * program that blocks its thread never blocks the host. Deployed, there is no runner: the
 * platform already runs every Dynamic Worker apart.
 */
export { SandboxRunner } from "./executor/runners/sandbox-runner";

export default {
  /** `/health` answers while the runner's thread is free: the supervisor's sign of progress. */
  fetch(request: Request): Response {
    const path = new URL(request.url).pathname;
    return path === "/health"
      ? new Response("ok", { headers: { "content-type": "text/plain" } })
      : new Response("A sandbox runner of the local server: it serves Workers RPC only.", {
          status: 404,
        });
  },
} satisfies ExportedHandler;
