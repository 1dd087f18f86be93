// Bindings of this Worker (wrangler.jsonc), as seen by `import { env } from "cloudflare:workers"`
// and by the Worker's fetch handler. Add a binding here when you add it to wrangler.jsonc.
declare namespace Cloudflare {
  interface Env {
    /** Worker Loader binding: creates the sandbox isolates that run model-written code. */
    LOADER: WorkerLoader;
  }
}
