/**
 * The local cluster's per-launch secret (local `npm start` / `code-mode-mcp` only). The
 * supervisor makes one random secret per server start (cli/local-server/cluster-secret.mjs) and
 * gives it to the host runtime and to every sandbox runner as the binding
 * {@link CLUSTER_SECRET_BINDING}, over the runtime host's IPC channel (never a file, an argument
 * or an environment variable). Every internal socket of the cluster then asks for it before
 * anything else: the runners' Workers RPC (`load`/`get`, sandbox-runner.ts), the runners'
 * `/health` and `/retire` (src/runner.ts), and the host Worker's own ports (the front's target
 * and Miniflare's, app/create-worker.ts) through the header {@link CLUSTER_SECRET_HEADER}. Those
 * sockets are on 127.0.0.1, which every process on the machine reaches (another user's, a
 * container sharing the network, a stray tool): without the secret, any of them could run code
 * with network in a runner, plant code under the shared worker's id, retire every runner, or
 * pick its own `CF-Connecting-IP` and so its OAuth attempt count.
 *
 * Deployed, no binding is set and nothing here applies.
 */

/** The binding that carries the secret into a runtime (a plain text binding). */
export const CLUSTER_SECRET_BINDING = "LOCAL_CLUSTER_SECRET";

/**
 * The request header that carries the secret to a runtime's HTTP ports; the host Worker removes
 * it before the app sees the request. cli/local-server/cluster-secret.mjs names the same header
 * (Node cannot import this file; a unit test compares them).
 */
export const CLUSTER_SECRET_HEADER = "x-local-cluster-secret";

/**
 * The request header in which the local front tells the host who a request's caller is: the
 * local process at the other end of its connection (cli/local-server/front/callers/), for
 * placement only (src/app/placement-caller.ts). The front drops any copy a client sent and sets
 * its own, and the host's ports take no request without the secret (app/create-worker.ts), so on
 * the local server only the front's copy reaches the app; deployed (no secret), the app ignores
 * it. Never anything secret in it. cli/local-server/cluster-secret.mjs names the same header.
 */
export const LOCAL_CALLER_HEADER = "x-local-caller";

/**
 * The secret a runtime was given, or undefined when none was (a deployed Worker, a test).
 * @param env - the Worker's bindings
 */
export function clusterSecretOf(env: unknown): string | undefined {
  if (typeof env !== "object" || env === null) return undefined;
  // An own property of the bindings object: nothing inherited counts as a secret.
  const value = Object.getOwnPropertyDescriptor(env, CLUSTER_SECRET_BINDING)?.value;
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/**
 * Whether `given` is the secret, in time that depends only on the secret's length (never on how
 * many leading characters a guess got right). Anything but a string is not the secret. Compared
 * by UTF-16 code units, read in place: two strings are the same text exactly when their code
 * units are, and the host checks this on every request, where encoding both sides to UTF-8 first
 * was a measurable share of a `ping`'s CPU (issue #43).
 * @param given - what the caller sent (a header's value, an RPC argument)
 * @param secret - the runtime's secret (non-empty)
 */
export function isClusterSecret(given: unknown, secret: string): boolean {
  if (typeof given !== "string" || secret.length === 0) return false;
  let difference = given.length ^ secret.length;
  // Past the end of `given`, charCodeAt is NaN and `| 0` makes it 0: the loop still runs the
  // secret's whole length, and a length that differs has already set `difference`.
  for (let i = 0; i < secret.length; i++)
    difference |= (given.charCodeAt(i) | 0) ^ secret.charCodeAt(i);
  return difference === 0;
}
