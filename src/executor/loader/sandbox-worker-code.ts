/**
 * The Worker Loader configuration of a sandbox isolate, in one place so its security settings
 * are reviewed (and tested) once.
 */
import type { SandboxExtensionName } from "../../../sandbox/protocol";
import { SANDBOX_MODULES } from "../generated/sandbox-modules";
import { PROGRAM_MODULE } from "../runners/run-base";

/** The module holding the run's own (instrumented) program; the rest is the same for every run. */
export const USER_MODULE = PROGRAM_MODULE;

/** Options for {@link sandboxWorkerCode}. */
export interface SandboxWorkerOptions {
  compatibilityDate: string;
  /** CPU limit enforced by Cloudflare (local workerd does not enforce it). */
  cpuMs: number;
  /** Extension modules the run needs (only those are shipped). */
  extensions?: readonly SandboxExtensionName[];
}

/**
 * Builds the loader code for one run: the harness, the budget runtime and the user's module.
 *
 * Security defaults: `globalOutbound: null` blocks `fetch()` and `connect()`; `env` is empty,
 * so the isolate holds no bindings or secrets; no compatibility flags beyond the date (no
 * `nodejs_compat`, so no Node networking modules).
 * @param userModule - the instrumented `user.js` text (from prepareCode)
 * @param options - compatibility date and CPU limit
 */
export function sandboxWorkerCode(
  userModule: string,
  options: SandboxWorkerOptions,
): WorkerLoaderWorkerCode {
  return {
    compatibilityDate: options.compatibilityDate,
    mainModule: "harness.js",
    modules: {
      "harness.js": SANDBOX_MODULES["harness.js"],
      "runtime.js": SANDBOX_MODULES["runtime.js"],
      [USER_MODULE]: userModule,
      ...Object.fromEntries(
        (options.extensions ?? []).map((name) => [
          `ext-${name}.js`,
          SANDBOX_MODULES[`ext-${name}.js`],
        ]),
      ),
    },
    globalOutbound: null,
    env: {},
    limits: { cpuMs: options.cpuMs },
  };
}
