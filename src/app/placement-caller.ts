/**
 * Who a run is placed for on the local sandbox runners (src/executor/runners/runner-loader.ts:
 * one caller may use all runners but one, so one caller's blocking programs cannot take every
 * runner from the others). The app names the caller of each request it serves and runs the
 * request inside that name: an `AsyncLocalStorage`, as `getMcpAuthContext()` is, so every run the
 * request starts sees it without the MCP servers, tools and executors passing it along.
 *
 * The caller is the OAuth user when OAuth is on, else the client's address (`CF-Connecting-IP`:
 * Cloudflare sets it, the local front replaces any a client sent), an IPv6 one by its /64. Not
 * the API key: every holder of the one key would be one caller. A loopback address names nobody:
 * on a local server every client comes from it, so capping it would cap the whole server; there
 * the pool itself keeps serving (docs/local-runtime.md, "Placement").
 *
 * Security defaults: never a token or key, not even a hash of one; the name stays on the host.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { AppConfig } from "./config/config";
import { addressKey } from "./oauth/address-key";
import { callerOf } from "./runs/caller";

const storage = new AsyncLocalStorage<string>();

/**
 * Names the caller of `request` for placement ("": nobody in particular, never capped).
 * @param request - the request (its `CF-Connecting-IP`)
 * @param config - the checked configuration (whether OAuth is on)
 * @param authInfo - the verified identity, if any
 */
export function placementCaller(
  request: Request,
  config: AppConfig,
  authInfo: AuthInfo | undefined,
): string {
  if (config.oauth) return callerOf(config, authInfo);
  const address = request.headers.get("cf-connecting-ip")?.trim().toLowerCase() ?? "";
  if (address === "" || isLoopback(address)) return "";
  // By its /64 for IPv6, as the OAuth limits count it: one host holds a whole /64, and each of
  // its addresses a caller of its own would let it past the cap, one run per address.
  return `address:${addressKey(address)}`;
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
