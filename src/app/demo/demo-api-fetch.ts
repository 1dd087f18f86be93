/**
 * Calls into the demo API's Durable Object (`DemoStore`, demo-store.ts). Apart from the class so
 * that what only calls it (the demo upstream's tools) imports no Workers runtime module: the
 * spec build step lists the demo upstream's tools in Node to count them.
 */
import type { DemoStore } from "./demo-store";

/** The base path under which the Worker serves the demo API. */
export const DEMO_API_BASE = "/demo-api";

/**
 * Sends a request to the demo API in-process (a Durable Object call, no network).
 * @param namespace - the `DEMO_STORE` binding
 * @param path - path relative to the API base, with its query string
 * @param init - method, headers and body
 */
export function demoApiFetch(
  namespace: DurableObjectNamespace<DemoStore>,
  path: string,
  init?: RequestInit,
): Promise<Response> {
  const stub = namespace.get(namespace.idFromName("demo"));
  return stub.fetch(new Request(`http://demo-api.internal${path}`, init));
}
