// Bindings the vitest config adds to the workers project only (vitest.config.ts).
declare namespace Cloudflare {
  interface Env {
    /** "on" when this workerd runs with V8's linear-time regex fallback (cli/local-server/v8-flags.mjs). */
    REGEXP_FALLBACK?: string;
  }
}
