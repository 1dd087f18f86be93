/**
 * The sandbox runner Worker of the local server: wiring only. `npm start` and `code-mode-mcp`
 * run it in workerd processes of its own beside the host runtime (docs/local-runtime.md), so a
 * program that blocks its thread never blocks the host. Deployed, there is no runner: the
 * platform already runs every Dynamic Worker apart.
 */
import {
  CLUSTER_SECRET_HEADER,
  clusterSecretOf,
  isClusterSecret,
} from "./executor/runners/cluster-secret";
import { decodeCode, encodeCode } from "./executor/runners/code-wire";
import { runnerLife } from "./executor/runners/runner-life";
import { STABLE_HEADER, stableCode, stableHashes, warmStable } from "./executor/runners/held-code";

export { SandboxRunner } from "./executor/runners/sandbox-runner";

export default {
  /**
   * `/health` answers while the runner's thread is free (the supervisor's sign of progress),
   * with the runner's counts of runs begun and under way; `POST /retire` makes it begin no more
   * runs (the supervisor then waits for those under way and replaces it: runner-life.ts). Both
   * only to the supervisor: a request without this launch's cluster secret
   * (executor/runners/cluster-secret.ts) gets a 403 and no counts, whoever else on the machine
   * reaches the loopback port. A runner started without a secret serves no one.
   *
   * `GET /stable?hash=…` answers the stable worker code held under that hash as text
   * (code-wire.ts), and `POST /warm` with such text loads it here before any run asks
   * (held-code.ts, `warmStable`): the supervisor warms a runner it has just started with
   * the shared worker's engine that another runner holds.
   */
  async fetch(request: Request, env: { LOADER: WorkerLoader }): Promise<Response> {
    const secret = clusterSecretOf(env);
    if (
      secret === undefined ||
      !isClusterSecret(request.headers.get(CLUSTER_SECRET_HEADER), secret)
    )
      return new Response(
        "A sandbox runner of the local server: only the server's own processes may use this port.",
        { status: 403, headers: { "content-type": "text/plain" } },
      );
    const path = new URL(request.url).pathname;
    if (path === "/stable" && request.method === "GET") {
      const code = stableCode(new URL(request.url).searchParams.get("hash") ?? "");
      return code
        ? new Response(encodeCode(code), { headers: { "content-type": "application/json" } })
        : new Response("No stable worker code under that hash here.", { status: 404 });
    }
    if (path === "/warm" && request.method === "POST") {
      let hash: string;
      try {
        hash = await warmStable(env.LOADER, decodeCode(await request.text()));
      } catch (error) {
        return new Response(`Not warmed: ${error instanceof Error ? error.message : "?"}`, {
          status: 400,
        });
      }
      return new Response(hash, { headers: { "content-type": "text/plain" } });
    }
    if (path === "/retire" && request.method === "POST") {
      runnerLife.retire();
      return new Response(null, { status: 204, headers: runnerLife.headers() });
    }
    return path === "/health"
      ? new Response("ok", {
          headers: {
            "content-type": "text/plain",
            ...runnerLife.headers(),
            [STABLE_HEADER]: stableHashes().join(","),
          },
        })
      : new Response("A sandbox runner of the local server: it serves Workers RPC only.", {
          status: 404,
        });
  },
} satisfies ExportedHandler<{ LOADER: WorkerLoader }>;
