/**
 * The Worker Loader configuration of the SHARED sandbox worker (one stable Dynamic Worker that
 * runs every program as data in a WebAssembly engine), and its stable id. Same security
 * settings as the per-run isolate (sandbox-worker-code.ts): no outbound network, no bindings,
 * no compatibility flags beyond the date.
 */
import { ENGINE_MODULES, ENGINE_VERSION, ENGINE_WASM_BASE64 } from "../generated/engine-modules";
import { SANDBOX_MODULES } from "../generated/sandbox-modules";

/** Options for {@link sharedWorkerCode}. */
export interface SharedWorkerOptions {
  compatibilityDate: string;
  /** CPU limit per invocation, enforced by Cloudflare (local workerd does not enforce it). */
  cpuMs: number;
}

/** Version of the engine and its modules: changes with every build that changes them. */
export const SHARED_ENGINE_VERSION: string = ENGINE_VERSION;

/**
 * The stable id of the shared worker: one per deployment name, engine version and settings, so
 * a deployment reuses one Dynamic Worker and a new build never meets an old one.
 * @param name - the deployment's name for its shared worker (e.g. the Worker's name)
 * @param options - the settings baked into the worker
 */
export function sharedWorkerId(name: string, options: SharedWorkerOptions): string {
  return `code-mode-shared:${name}:${ENGINE_VERSION}:${options.compatibilityDate}:${options.cpuMs}`;
}

let wasmBytes: ArrayBuffer | undefined;

/** The engine's WebAssembly bytes, decoded once per host isolate (only when a worker loads). */
function engineWasm(): ArrayBuffer {
  if (!wasmBytes) {
    const text = atob(ENGINE_WASM_BASE64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    wasmBytes = bytes.buffer;
  }
  return wasmBytes;
}

/**
 * Builds the loader code of the shared worker. Nothing of any run is in it: programs arrive as
 * data over RPC, so the code (and the id) stay the same for every run.
 * @param options - compatibility date and CPU limit
 */
export function sharedWorkerCode(options: SharedWorkerOptions): WorkerLoaderWorkerCode {
  return {
    compatibilityDate: options.compatibilityDate,
    mainModule: "runner.js",
    modules: {
      "runner.js": ENGINE_MODULES.runner,
      "quickjs.wasm": { wasm: engineWasm() },
      "engine-modules.json": {
        json: {
          "guest.js": ENGINE_MODULES.guest,
          "runtime.js": SANDBOX_MODULES["runtime.js"],
          "ext-openapi.js": SANDBOX_MODULES["ext-openapi.js"],
          "ext-request.js": SANDBOX_MODULES["ext-request.js"],
          "ext-skills.js": SANDBOX_MODULES["ext-skills.js"],
        },
      },
    },
    globalOutbound: null,
    env: {},
    limits: { cpuMs: options.cpuMs },
  };
}
