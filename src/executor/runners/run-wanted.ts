/**
 * A runner's word with the host about one run, on the host's bridge stub as it came: before the
 * run begins ({@link announce}: does the host still want this copy, or has it moved the run?)
 * and while it goes on ({@link stillWanted}, every {@link RUN_WANTED_POLL_MS}: does the host still
 * wait for it?). Both ask, and a host that cannot answer counts as yes: only the host's explicit
 * `false` gives a run up (sandbox-runner.ts does that).
 */
import type { RunnerAnswer } from "./runner-protocol";

/**
 * Tells the host the run begins here, and waits for its word: the run starts only if the host
 * still wants this copy (it moves a run that a runner did not begin in time, and this runner may
 * have been holding its thread). Awaited on purpose: a message merely queued would not leave
 * before a program that blocks this thread, and the host would move the blocking program too.
 * A host that does not answer `begin` (an older one) counts as yes.
 */
export async function announce(host: unknown): Promise<boolean> {
  try {
    // Called as a method of the stub: a method taken off an RPC stub and applied with `.call`
    // would name a remote method "begin.call".
    return (await (host as { begin(): unknown }).begin()) !== false;
  } catch {
    return true;
  }
}

/** The answer of a copy the host no longer wants (it never reads it). */
export const CANCELLED: RunnerAnswer = { thrown: "This run was moved to another runner." };

/**
 * How often the runner asks the host whether it still waits for a run that is still going
 * ({@link stillWanted}): a run the host gave up on before its timeout (a task's `tasks/cancel`)
 * ends here within this, not at its timeout. One small RPC per run per interval, for runs that
 * last that long.
 */
export const RUN_WANTED_POLL_MS = 1_000;

/**
 * Whether the host still waits for the run (`wanted` of the host's tracked bridge,
 * tracked-host.ts): only an explicit `false` is a no. A task's `tasks/cancel` ends the run on
 * the host, but the run's context there (the task's) goes on, so its call to this runner is not
 * cancelled: without asking, the runner kept the run (its isolate, its memory, a place among the
 * runs under way that retirement waits for) until its timeout plus the margin (attack10: a
 * cancelled run holding 200 MB for its whole 30 s).
 */
export async function stillWanted(host: unknown): Promise<boolean> {
  try {
    // Called as a method of the stub (see announce).
    return (await (host as { wanted(): unknown }).wanted()) !== false;
  } catch {
    return true;
  }
}
