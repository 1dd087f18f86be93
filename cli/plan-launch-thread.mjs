// The worker thread in which `serve` (serve.mjs) checks the settings and compiles the spec: it
// loads the product module, plans the launch, sends the plan (or the problem) and ends, and the
// memory all of that took goes with it. Its log and progress lines travel as messages, so the
// launcher sends each where it belongs (stderr under --stdio).
import { parentPort, workerData } from "node:worker_threads";
import { loadProduct } from "./runtime-paths.mjs";
import { LaunchProblem, planLaunch } from "./serve.mjs";

const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort);
const { label, env } = /** @type {{ label: string, env: NodeJS.ProcessEnv }} */ (workerData);
const product = await loadProduct(label);
try {
  const plan = await planLaunch({
    label,
    product,
    env,
    log: (line) => port.postMessage({ log: line }),
    progress: (line) => port.postMessage({ progress: line }),
    warn: (line) => port.postMessage({ progress: line }),
  });
  port.postMessage({ plan });
} catch (error) {
  port.postMessage({
    fail:
      error instanceof LaunchProblem
        ? error.message
        : `${label}: the launch check failed: ${/** @type {Error} */ (error)?.stack ?? error}`,
  });
}
