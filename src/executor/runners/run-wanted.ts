/**
 * A runner's word with the host about one run, on the host's bridge stub as it came: before the
 * run begins ({@link announce}: does the host still want this copy, or has it moved the run?)
 * and while it goes on ({@link stillWanted}, every {@link RUN_WANTED_POLL_MS}: does the host still
 * wait for it?). Before a run begins, a host that cannot answer counts as yes; while it goes on,
 * as no: the host's side of the run is gone (sandbox-runner.ts gives the run up).
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
 * tracked-host.ts): an explicit `false` is a no, and so is a host that cannot answer. A task's
 * `tasks/cancel` ends the run on the host, but the run's context there (the task's) goes on, so
 * its call to this runner is not cancelled: without asking, the runner kept the run (its isolate,
 * its memory, a place among the runs under way that retirement waits for) until its timeout plus
 * the margin (attack10: a cancelled run holding 200 MB for its whole 30 s).
 *
 * A throw is a no (issue #40): the host's side of the run is gone. When a client goes away,
 * workerd cancels the host's request and with it the host's call to this runner (the runner
 * keeps the run's call going on its own: sandbox-runner.ts), and every `wanted` after that fails
 * with "Network connection lost." (e2e gone-client). Counted as yes, the run went on until its
 * timeout plus the margin, 31.5 s after its client left; its host calls fail the same way, so
 * nothing the run could still do reaches anyone. The stub's `wanted` is a field read on the host
 * (TrackedHost), so a live host does not fail it; the runner and its host come from one build,
 * so no host lacks it.
 */
export async function stillWanted(host: unknown): Promise<boolean> {
  try {
    // Called as a method of the stub (see announce).
    return (await (host as { wanted(): unknown }).wanted()) !== false;
  } catch {
    return false;
  }
}
