// `npm test`: lint, format check, typecheck and every vitest project, then one line per step
// with its time. The typecheck (one CPU-bound tsc) runs beside vitest, whose projects spend much
// of their time waiting on workerd; its output is printed after vitest's, never interleaved.
//
// Usage: npm test [-- vitest arguments…]   (e.g. `npm test -- --project unit`; the arguments go
// to vitest only; lint, format check and typecheck always run)
import { spawn } from "node:child_process";

/**
 * @typedef {object} Step
 * @property {string} name
 * @property {string} command
 * @property {string[]} args
 * @property {boolean} [buffered] - collect the output and print it when the step ends
 */

/**
 * Runs one step; resolves with its exit code, seconds and (buffered) output.
 * @param {Step} step
 * @returns {Promise<{ step: Step, code: number, seconds: number, output: string }>}
 */
function run(step) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, {
      stdio: step.buffered ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    let output = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    child.stderr?.on("data", (chunk) => (output += chunk));
    child.on("close", (code, signal) =>
      resolve({
        step,
        code: code ?? (signal === null ? 1 : 128),
        seconds: (performance.now() - started) / 1000,
        output,
      }),
    );
  });
}

const npx = (/** @type {string[]} */ ...args) => ({
  command: "npx",
  args: ["--no-install", ...args],
});
const results = [];
for (const step of [
  { name: "lint", ...npx("oxlint", "--deny-warnings") },
  { name: "format", ...npx("oxfmt", "--check", ".") },
]) {
  const result = await run(step);
  results.push(result);
  if (result.code !== 0) break;
}
if (results.every((r) => r.code === 0)) {
  // `npm run typecheck`: the Worker code (tsconfig.json) and the browser code (browser/).
  const typecheck = run({
    name: "typecheck",
    command: "npm",
    args: ["run", "--silent", "typecheck"],
    buffered: true,
  });
  const vitest = await run({ name: "vitest", ...npx("vitest", "run", ...process.argv.slice(2)) });
  const checked = await typecheck;
  if (checked.output.trim() !== "") process.stdout.write(`\ntypecheck:\n${checked.output}`);
  results.push(checked, vitest);
}

const width = Math.max(...results.map((r) => r.step.name.length));
process.stdout.write(
  `\nnpm test steps\n${results
    .map(
      (r) =>
        `${r.step.name.padEnd(width)}  ${r.seconds.toFixed(1).padStart(6)} s  ${r.code === 0 ? "ok" : `failed (exit ${r.code})`}`,
    )
    .join("\n")}\n`,
);
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
