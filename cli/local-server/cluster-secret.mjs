/**
 * This server's per-launch secret (src/executor/runners/cluster-secret.ts says what it guards):
 * made once when the supervisor's process loads this module, which is once per server start (one
 * `npm start` or `code-mode-mcp serve` is one supervisor process). The host and runner messages
 * carry it to the runtimes as a binding over the runtime host's IPC channel (worker-options.mjs);
 * the supervisor's own requests to the runtimes (health-request.mjs, request-head.mjs, front.mjs)
 * send it in {@link CLUSTER_SECRET_HEADER}. It is never written to a file, an argument, an
 * environment variable or the output.
 */
import { randomBytes } from "node:crypto";

/** The binding name (as src/executor/runners/cluster-secret.ts names it). */
export const CLUSTER_SECRET_BINDING = "LOCAL_CLUSTER_SECRET";
/** The request header (as src/executor/runners/cluster-secret.ts names it). */
export const CLUSTER_SECRET_HEADER = "x-local-cluster-secret";
/**
 * The header in which the front tells the host who a request's caller is (the process at the
 * other end of its connection: front/callers/peer-owners.mjs), as
 * src/executor/runners/cluster-secret.ts names it. The front sets it alone (a client's copy is
 * dropped: front/request-head.mjs), and the host reads it only beside the secret.
 */
export const LOCAL_CALLER_HEADER = "x-local-caller";

/** 256 random bits, URL-safe text: fits a header and a text binding as it is. */
export const clusterSecret = Buffer.from(randomBytes(32)).toString("base64url");

/**
 * Diagnostics only (bench/driver/local/local-server.mjs measures the runtimes' own ports): when this
 * process was started with an IPC channel and `LOCAL_CLUSTER_SECRET_TO_PARENT=1`, the secret is
 * sent to its parent over that channel, which only the parent holds (npm never opens one). The
 * parent that started the server could read its memory anyway; nothing else gets it.
 * @param {NodeJS.ProcessEnv} env
 */
export function shareSecretWithParent(env) {
  if (env.LOCAL_CLUSTER_SECRET_TO_PARENT === "1" && process.connected)
    process.send?.({ clusterSecret });
}
