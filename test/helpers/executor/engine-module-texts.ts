/**
 * The module texts the shared worker's runner loads into the engine (`./engine-modules.json`
 * in its Worker Loader configuration, src/executor/shared-worker/shared-worker-code.ts), for tests that run
 * sandbox/engine/run.ts in plain Node. Aliased in vitest.config.ts (unit project).
 */
import { ENGINE_MODULES } from "../../../src/executor/generated/engine-modules";
import { SANDBOX_MODULES } from "../../../src/executor/generated/sandbox-modules";

/** Module texts by the name the engine imports them under, as the shared worker ships them. */
const texts: Record<string, string> = {
  "guest.js": ENGINE_MODULES.guest,
  "runtime.js": SANDBOX_MODULES["runtime.js"],
  "ext-openapi.js": SANDBOX_MODULES["ext-openapi.js"],
  "ext-request.js": SANDBOX_MODULES["ext-request.js"],
  "ext-skills.js": SANDBOX_MODULES["ext-skills.js"],
};
export default texts;
