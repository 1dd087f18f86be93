/**
 * Modules of the shared sandbox worker that exist only in its Worker Loader configuration
 * (src/executor/shared-worker/shared-worker-code.ts), typed here for runner.ts.
 */
declare module "*/quickjs.wasm" {
  /** The engine, compiled by the platform when the worker loads. */
  const engine: WebAssembly.Module;
  export default engine;
}

declare module "*/engine-modules.json" {
  /** Module texts the engine loads for a run, by module name. */
  const texts: Record<string, string>;
  export default texts;
}
