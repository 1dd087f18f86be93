/**
 * The test Worker's bindings with `MCP_OBJECT` swapped for another namespace: several seed
 * examples rely on the default `MCP_OBJECT` binding, and one Worker has only one of those.
 */
import { env } from "cloudflare:workers";

/**
 * @param namespace - the example's own Durable Object namespace
 * @returns the bindings an example Worker sees, with `MCP_OBJECT` = `namespace`
 */
export function withMcpObject(namespace: unknown): Cloudflare.Env {
  return new Proxy(env, {
    get: (target, key) => (key === "MCP_OBJECT" ? namespace : Reflect.get(target, key)),
  });
}
