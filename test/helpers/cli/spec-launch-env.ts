/**
 * The settings of a test's launch: its spec file, a free port, and the user's cache folder and
 * key (cli/kept/spec-cache.mjs, spec-cache-key.mjs) in a folder of the test's own, so no test
 * reads or writes the user's.
 */
import { join } from "node:path";
import { freePort } from "../../../cli/local-server/free-port.mjs";

/**
 * A launch of `spec` with its cache and config homes in `root`.
 * @param root - the test's own folder
 * @param spec - SPEC_FILE
 */
export async function specLaunchEnv(root: string, spec: string): Promise<NodeJS.ProcessEnv> {
  return {
    SPEC_FILE: spec,
    PORT: String(await freePort()),
    XDG_CACHE_HOME: join(root, "cache"),
    XDG_CONFIG_HOME: join(root, "config"),
  } as unknown as NodeJS.ProcessEnv;
}
