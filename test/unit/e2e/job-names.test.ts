// Which e2e jobs `npm run e2e -- <name>…` runs (test/e2e/support/job-names.mjs): a job's name
// exactly that job, `<script>.mjs` every job of the script. `fair-share` ran
// `fair-share-shared-worker` too, the half that fails on a loaded machine.
import { describe, expect, it } from "vitest";
import { chooseJobs, listJobs } from "../../e2e/support/job-names.mjs";

const JOBS = [
  { name: "heal" },
  { name: "runaway-shared-worker", file: "runaway", alone: true },
  { name: "fair-share", alone: true },
  { name: "fair-share-shared-worker", file: "fair-share", alone: true },
  { name: "runaway", alone: true, shared: "replacing" },
];
const names = (chosen: { name: string }[]) => chosen.map((j) => j.name);

describe("chooseJobs", () => {
  it("chooses a job by its exact name only, not the jobs that run the same script", () => {
    expect(names(chooseJobs(JOBS, ["fair-share"]).chosen)).toEqual(["fair-share"]);
    expect(names(chooseJobs(JOBS, ["runaway"]).chosen)).toEqual(["runaway"]);
    expect(names(chooseJobs(JOBS, ["fair-share-shared-worker", "heal"]).chosen)).toEqual([
      "heal",
      "fair-share-shared-worker",
    ]);
  });

  it("chooses every job of a script by its file name, in the jobs' order", () => {
    expect(names(chooseJobs(JOBS, ["runaway.mjs"]).chosen)).toEqual([
      "runaway-shared-worker",
      "runaway",
    ]);
    expect(names(chooseJobs(JOBS, ["fair-share.mjs"]).chosen)).toEqual([
      "fair-share",
      "fair-share-shared-worker",
    ]);
  });

  it("names what chooses nothing: a prefix is no name", () => {
    expect(chooseJobs(JOBS, ["fair", "heal", "runaway-shared-worker.mjs"]).unknown).toEqual([
      "fair",
      "runaway-shared-worker.mjs",
    ]);
  });
});

describe("listJobs", () => {
  it("lists each job with its step and script, in columns", () => {
    expect(listJobs(JOBS)).toEqual([
      "heal                      pooled                            heal.mjs",
      "runaway-shared-worker     alone                             runaway.mjs",
      "fair-share                alone                             fair-share.mjs",
      "fair-share-shared-worker  alone                             fair-share.mjs",
      "runaway                   alone (shared server: replacing)  runaway.mjs",
    ]);
  });
});
