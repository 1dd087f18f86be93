// The run-decoded view of a body that is one long run (issue #40): a run's end, its characters
// and its decoding are passes as long as the run, and a program chooses the run (4 MB of base64
// of text held the host thread 86 ms between two pauses on an idle core). Counted in characters
// of runs read between pauses (runWork), never timed.
import { describe, expect, it } from "vitest";
import { runWork } from "../../../../../src/codemode/redaction/decoding/run-characters";
import { runDecodedViewInSlices } from "../../../../../src/codemode/redaction/decoding/run-decoded-view";
import { PAUSE, SLICE_POSITIONS } from "../../../../../src/codemode/redaction/slices";

const TEXT = "Lorem ipsum dolor sit amet, consectetur adipiscing. ";
const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));
const hex = (t: string) =>
  [...t].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
const SIZE = 1_048_576;
const text = fill(TEXT, SIZE);
const base64 = btoa(text);

/** Bodies that are one run (or one cut run), and the text each decodes to. */
const runs: [string, string, string][] = [
  ["base64, one run", base64, text],
  ["base64 in 76-character lines", base64.replace(/.{76}/g, "$&\n"), text],
  ["base64 in lines of `\\n` escapes", base64.replace(/.{76}/g, "$&\\n"), text],
  ["hex, one run", hex(text), text],
  ["base64 cut into 39-character pieces", base64.replace(/.{39}(?!$)/g, "$& "), text],
  // A few characters at each end of a run of line breaks: its first and last characters are
  // sought across all of them.
  [
    "a run of line breaks",
    `${btoa("a".repeat(30))}${"\n".repeat(SIZE)}${btoa("b".repeat(30))}`,
    `${"a".repeat(30)}${"b".repeat(30)}`,
  ],
];

describe("the run-decoded view of one long run", () => {
  it.each(runs)("reads it in slices: %s", (_, body, decoded) => {
    const pass = runDecodedViewInSlices({ text: body, origin: null });
    let [since, most, pauses] = [runWork.positions, 0, 0];
    const start = since;
    let step = pass.next();
    for (; !step.done; step = pass.next()) {
      expect(step.value).toBe(PAUSE);
      most = Math.max(most, runWork.positions - since);
      since = runWork.positions;
      pauses++;
    }
    most = Math.max(most, runWork.positions - since);
    // The view is the run's decoding (a cut run's pieces are read as the whole run too).
    expect(step.value?.text.split("\n").includes(decoded)).toBe(true);
    // Every character of the run read at least twice (its end sought, then copied, then
    // decoded), never more than a slice's worth between two pauses.
    expect(runWork.positions - start).toBeGreaterThanOrEqual(2 * body.length);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2 * SLICE_POSITIONS);
    expect(pauses).toBeGreaterThanOrEqual((2 * body.length) / (2 * SLICE_POSITIONS) - 1);
  });
});

// Sliced passes of different requests interleave in the host (another runs at every pause), so a
// pass keeps nothing in module state across a pause: the samples of a run's first and last
// characters were shared buffers, filled across pauses since those are sought in slices.
describe("run-decoded views interleaved at their pauses", () => {
  it("read each run from its own samples", () => {
    const a = `${btoa("a".repeat(30))}${"\n".repeat(300_000)}${btoa("b".repeat(30))}`;
    const binary = String.fromCharCode(...Array.from({ length: 60 }, (_, i) => 0x80 + i));
    const b = `x ${btoa(binary)} y`;
    const alone = [...runDecodedViewInSlices({ text: a, origin: null })];
    const pass = runDecodedViewInSlices({ text: a, origin: null });
    let [step, pauses] = [pass.next(), 0];
    for (; !step.done; step = pass.next()) {
      // Another request's view, made whole at this pause.
      for (const other of runDecodedViewInSlices({ text: b, origin: null })) void other;
      pauses++;
    }
    expect(pauses).toBeGreaterThan(2);
    expect(step.value?.text).toBe("a".repeat(30) + "b".repeat(30));
    expect(alone.length).toBe(pauses);
  });
});
