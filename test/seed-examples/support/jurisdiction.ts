/**
 * Bindings whose `MCP_OBJECT` records the jurisdiction a handler asks for. workerd does not
 * implement jurisdiction restrictions, so the recorded call returns the real namespace itself;
 * on Cloudflare the same call returns the jurisdiction-pinned namespace.
 */
import { env } from "cloudflare:workers";

/** The test Worker's bindings with a recording `MCP_OBJECT`; `asked` collects each call. */
export function recordingBindings(asked: string[]): Cloudflare.Env {
  const real = env.MCP_OBJECT;
  const namespace = new Proxy(real, {
    get(target, key, receiver) {
      if (key === "jurisdiction") {
        return (jurisdiction: string) => {
          asked.push(jurisdiction);
          return receiver;
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return new Proxy(env, {
    get(target, key) {
      return key === "MCP_OBJECT" ? namespace : Reflect.get(target, key);
    },
  });
}
