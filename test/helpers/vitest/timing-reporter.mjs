/**
 * A vitest reporter that ends the run with one line per project: files, executed tests, when the
 * project finished and where its time went (import vs. tests). `npm test` prints it after the
 * default reporter, so a slow project shows up in every run, not only when someone measures.
 */

/**
 * @typedef {object} ProjectTally
 * @property {number} end - when the project's last file ended (ms since the run started)
 * @property {number} files
 * @property {number} passed
 * @property {number} failed
 * @property {number} skipped
 * @property {number} importMs - summed per file: importing the file and the modules it loads
 * @property {number} testsMs - summed per file: running its tests and hooks
 */

/** Prints a per-project timing table when the run ends (see the module comment). */
export class TimingReporter {
  /** @type {Map<string, ProjectTally>} */
  #projects = new Map();
  #runStart = performance.now();

  onTestRunStart() {
    this.#runStart = performance.now();
  }

  /** @param {import("vitest/node").TestModule} testModule */
  onTestModuleEnd(testModule) {
    const name = testModule.project.name;
    const tally = this.#projects.get(name) ?? {
      end: 0,
      files: 0,
      passed: 0,
      failed: 0,
      skipped: 0,
      importMs: 0,
      testsMs: 0,
    };
    this.#projects.set(name, tally);
    const diagnostic = testModule.diagnostic();
    tally.end = performance.now() - this.#runStart;
    tally.files += 1;
    tally.importMs += diagnostic.collectDuration;
    tally.testsMs += diagnostic.duration;
    for (const test of testModule.children.allTests()) {
      const state = test.result().state;
      if (state === "passed") tally.passed += 1;
      else if (state === "failed") tally.failed += 1;
      else tally.skipped += 1;
    }
  }

  onTestRunEnd() {
    const header = [
      "project",
      "files",
      "tests run",
      "skipped",
      "failed",
      "done at",
      "import",
      "tests",
    ];
    const rows = [...this.#projects]
      .toSorted((a, b) => a[1].end - b[1].end)
      .map(([name, t]) => [
        name,
        String(t.files),
        String(t.passed + t.failed),
        String(t.skipped),
        String(t.failed),
        seconds(t.end),
        seconds(t.importMs),
        seconds(t.testsMs),
      ]);
    const table = [header, ...rows];
    const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]?.length ?? 0)));
    /** @param {string[]} row */
    const line = (row) =>
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join("  ");
    process.stdout.write(
      `\nTiming by project ("done at": since the run started; import and tests: summed over its files)\n${table.map(line).join("\n")}\n`,
    );
  }
}

/** @param {number} ms */
function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}
