// The launcher's side of the launch check (plan-launch-child.mjs): forks the short-lived Node
// process that checks the settings and compiles the spec, gives it the settings over its IPC
// channel and waits for its plan, passing its log and progress lines on as they come.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Runs planLaunch (plan-launch.mjs) in a short-lived Node process (plan-launch-child.mjs) and waits for
 * its plan, passing its log and progress lines on as they come. The settings reach it over its
 * IPC channel, never as arguments or added environment variables (it inherits this process's
 * own environment). With them go the digests of files this process hashed already
 * (kept/file-digest.mjs: the product module and the spec file under `--stdio`), which the check
 * takes as its own instead of hashing the same bytes again.
 * @param {{ label: string, env: NodeJS.ProcessEnv, log: (line: string) => void, progress: (line: string) => void, digests?: import("./kept/file-digest.mjs").KnownDigest[] }} options
 * @returns {Promise<{ ok: true, plan: import("./plan-launch.mjs").LaunchPlan } | { ok: false, message: string, exitCode?: number }>}
 */
export function planInProcess({ label, env, log, progress, digests = [] }) {
  return new Promise((settle) => {
    const child = fork(fileURLToPath(new URL("./plan-launch-child.mjs", import.meta.url)), [], {
      // Its stdout goes to this process's stderr (never stdout: under --stdio that is the
      // protocol's); what it logs comes as messages. No stdin: under --stdio that is the client's.
      stdio: ["ignore", "pipe", "inherit", "ipc"],
      serialization: "advanced",
      // None of this process's Node flags (a bench's inspector, say) applies to the check.
      execArgv: [],
    });
    child.stdout?.on("data", (chunk) => process.stderr.write(chunk));
    /** @type {{ ok: true, plan: import("./plan-launch.mjs").LaunchPlan } | { ok: false, message: string } | undefined} */
    let answer;
    child.on("message", (/** @type {any} */ message) => {
      if (typeof message.log === "string") log(message.log);
      else if (typeof message.progress === "string") progress(message.progress);
      else if (message.plan) answer = { ok: true, plan: message.plan };
      else if (typeof message.fail === "string") answer = { ok: false, message: message.fail };
    });
    child.on("error", (error) => {
      answer ??= { ok: false, message: String(error?.stack ?? error) };
    });
    child.send({ label, env: { ...env }, digests });
    // The process ends on its own once its plan is sent (or it exited: a missing build).
    child.on("exit", (code, signal) =>
      settle(
        answer ?? /** @type {any} */ ({
          ok: false,
          message: `the launch check ended (${signal ? `signal ${signal}` : `exit code ${code}`}) without a plan.`,
          exitCode: code || 1,
        }),
      ),
    );
  });
}
