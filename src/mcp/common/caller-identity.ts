/**
 * Who is calling, as the hosting layer tells callers apart: what a task is owned by and what a
 * sealed `requestState` is bound to.
 *
 * Security defaults: the signed-in **user** comes first. One OAuth client registration (a
 * desktop app, a shared connector) serves many users, so an identity made of the client id alone
 * let every user of that client read, cancel and answer another user's tasks and approvals
 * (#29). The prefixes keep a user id and a client id that happen to be equal apart. Nothing of
 * the token is used, not even a hash (a forwarded token is a credential for the upstream API).
 *
 * Does not do: tell anonymous callers apart (they are one caller, "").
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { authContextFrom } from "./auth-context";

/**
 * The caller's identity: `user:<id>` for a grant whose props (what `getMcpAuthContext()`
 * exposes) name a `userId`, else `client:<id>` for an authenticated client, else "".
 * @param authInfo - the request's verified identity, if any
 */
export function callerIdentity(authInfo: AuthInfo | undefined): string {
  const user = authContextFrom(authInfo)?.props.userId;
  if (typeof user === "string" && user !== "") return `user:${user}`;
  const client = authInfo?.clientId;
  return typeof client === "string" && client !== "" ? `client:${client}` : "";
}
