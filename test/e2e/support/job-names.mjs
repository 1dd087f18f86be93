/**
 * Which e2e jobs a list of names chooses (test/e2e/run.mjs). A job's name chooses that job
 * alone, exactly: `fair-share` is not `fair-share-shared-worker`. A script's file name with its
 * `.mjs` chooses every job that runs the script: `fair-share.mjs` chooses both halves. Before, a
 * bare name chose every job whose script it named, so `fair-share` ran the other half too.
 */

/**
 * @typedef {{ name: string, file?: string, alone?: boolean, shared?: string }} NamedJob
 */

/**
 * The script a job runs (its `file`, else its name), with `.mjs`.
 * @param {NamedJob} job
 */
export const scriptOf = (job) => `${job.file ?? job.name}.mjs`;

/**
 * The jobs `names` choose, in the order of `jobs`, and the names that choose none.
 * @template {NamedJob} J
 * @param {readonly J[]} jobs - every job (run.mjs's SCRIPTS)
 * @param {readonly string[]} names - job names, or script files (`<script>.mjs`) for all its jobs
 * @returns {{ chosen: J[], unknown: string[] }}
 */
export function chooseJobs(jobs, names) {
  const unknown = names.filter((n) => !jobs.some((j) => j.name === n || scriptOf(j) === n));
  const chosen = jobs.filter((j) => names.includes(j.name) || names.includes(scriptOf(j)));
  return { chosen, unknown };
}

/**
 * One line a job for `npm run e2e -- --list`: its name, its step and the script it runs.
 * @param {readonly NamedJob[]} jobs
 * @returns {string[]}
 */
export function listJobs(jobs) {
  const steps = jobs.map((j) =>
    j.alone ? `alone${j.shared ? ` (shared server: ${j.shared})` : ""}` : "pooled",
  );
  const nameWidth = Math.max(...jobs.map((j) => j.name.length));
  const stepWidth = Math.max(...steps.map((step) => step.length));
  return jobs.map(
    (j, i) => `${j.name.padEnd(nameWidth)}  ${steps[i]?.padEnd(stepWidth)}  ${scriptOf(j)}`,
  );
}
