// The bindings of wrangler.jsonc (what `wrangler types` would write).
declare namespace Cloudflare {
  interface Env {
    LOADER: WorkerLoader;
    ADD_AGENT: DurableObjectNamespace;
  }
}
