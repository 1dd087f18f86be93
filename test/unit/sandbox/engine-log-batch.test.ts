// Reading a console batch within the run's room: whole when it fits; else the entries that fit,
// then one hole per further entry (commas and brackets inside strings are not entries).
import { describe, expect, it } from "vitest";
import { readLogBatch } from "../../../sandbox/engine-log-batch";

const line = (message: string) => ({ level: "log", message });

describe("readLogBatch", () => {
  it("parses a batch that fits whole", () => {
    const text = JSON.stringify([line("a"), line("b")]);
    expect(readLogBatch(text, text.length)).toEqual({
      logs: [line("a"), line("b")],
      chars: text.length,
    });
  });

  it("keeps the entries that fit and counts the rest as holes", () => {
    const text = JSON.stringify([line("first"), line('x,"],[{}'.repeat(50)), line("z"), 7]);
    const { logs, chars } = readLogBatch(text, 40);
    expect(logs).toHaveLength(4);
    expect(Object.keys(logs as unknown[])).toEqual(["0"]);
    expect((logs as unknown[])[0]).toEqual(line("first"));
    expect(chars).toBeLessThanOrEqual(40);
  });

  it("counts every entry as a hole when none fits, and refuses text that is not a list", () => {
    const text = JSON.stringify([line("a".repeat(100)), [], {}]);
    expect(readLogBatch(text, 10)).toEqual({ logs: Array.from({ length: 3 }), chars: 0 });
    expect(readLogBatch("[]", 0)).toEqual({ logs: [], chars: 0 });
    expect(readLogBatch(JSON.stringify({ level: "log", message: "m".repeat(50) }), 10)).toEqual({
      logs: null,
      chars: 0,
    });
  });
});
