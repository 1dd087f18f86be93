/**
 * Who a run is placed for on the local sandbox runners (src/executor/runners/runner-loader.ts:
 * one caller may use all runners but one, so one caller's blocking programs cannot take every
 * runner from the others). The app names the caller of each request it serves and runs the
 * request inside that name: an `AsyncLocalStorage`, as `getMcpAuthContext()` is, so every run the
 * request starts sees it without the MCP servers, tools and executors passing it along.
 *
 * The caller is the OAuth user when OAuth is on, else the client's address (`CF-Connecting-IP`:
 * Cloudflare sets it, the local front replaces any a client sent), an IPv6 one by its /64. Not
 * the API key: every holder of the one key would be one caller. On a local server every client
 * comes from loopback, so the address names nobody there; the local front names the process at
 * the other end of each connection instead ({@link LOCAL_CALLER_HEADER}, from
 * cli/local-server/front/callers/), and each local process is a caller of its own
 * (`local:process:<pid>`; `local:user:<uid>` for another user's processes, which are not ours to
 * read). A loopback client the front could not name (`unknown`: its connection's look did not
 * name it within the front's wait, cli/local-server/front/callers/caller-wait.mjs) or at all
 * ("": no /proc) names nobody: one shared name would put every new
 * client's first run in one queue that a hostile process fills, and an honest client's run would
 * then be refused where before it was served (docs/local-runtime.md, "Placement").
 *
 * Security defaults: never a token or key, not even a hash of one; the name stays on the host.
 * The front's caller is believed only where the host's ports take only the front's requests (the
 * cluster secret: `fromFront`); deployed, a client could write any name there.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { AppConfig } from "./config/config";
import { LOCAL_CALLER_HEADER } from "../executor/runners/cluster-secret";
import { addressKey } from "./oauth/address-key";
import { callerOf } from "./runs/caller";

const storage = new AsyncLocalStorage<string>();

/**
 * Names the caller of `request` for placement ("": nobody in particular, never capped).
 * @param request - the request (its `CF-Connecting-IP`, and the front's caller header)
 * @param config - the checked configuration (whether OAuth is on)
 * @param authInfo - the verified identity, if any
 * @param fromFront - whether only the local front can have sent the request: the host was given
 *   the cluster secret, and its ports refuse every request without it (create-worker.ts,
 *   localOnly). Only then is {@link LOCAL_CALLER_HEADER} believed.
 */
export function placementCaller(
  request: Request,
  config: AppConfig,
  authInfo: AuthInfo | undefined,
  fromFront = false,
): string {
  if (config.oauth) return callerOf(config, authInfo);
  const address = request.headers.get("cf-connecting-ip")?.trim().toLowerCase() ?? "";
  if (address === "" || isLoopback(address))
    return fromFront ? localCaller(request.headers.get(LOCAL_CALLER_HEADER)) : "";
  // By its /64 for IPv6, as the OAuth limits count it: one host holds a whole /64, and each of
  // its addresses a caller of its own would let it past the cap, one run per address.
  return `address:${addressKey(address)}`;
}

/**
 * The caller a local client's process is placed as: the front's key for a process or another
 * user (`process:<pid>`, `user:<uid>`) under `local:`; "" for any other value (`unknown`, none,
 * or a key the front does not make for a loopback client).
 * @param key - the front's {@link LOCAL_CALLER_HEADER}
 */
function localCaller(key: string | null): string {
  return key !== null && /^(process|user):\d{1,10}$/.test(key) ? `local:${key}` : "";
}

/** Whether `address` is a loopback address (127.0.0.0/8, ::1, or either mapped into IPv6). */
function isLoopback(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || /^(0{0,4}:){2,7}0{0,3}1$/.test(address);
}

/**
 * Runs `fn` with `caller` as the caller of every run it starts.
 * @param caller - from {@link placementCaller}
 * @param fn - the request's handling
 * @returns what `fn` returns
 */
export function runAsCaller<T>(caller: string, fn: () => T): T {
  return storage.run(caller, fn);
}

/** The caller of the request being served ("" outside one); the runner loader asks this. */
export function currentCaller(): string {
  return storage.getStore() ?? "";
}
