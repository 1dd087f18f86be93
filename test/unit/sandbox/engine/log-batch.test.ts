// Reading a console batch within the run's room: whole when it fits; else the entries that fit,
// then one hole per further entry (commas and brackets inside strings are not entries).
import { describe, expect, it } from "vitest";
import { readLogBatch } from "../../../../sandbox/engine/log-batch";

const line = (message: string) => ({ level: "log", message });

describe("readLogBatch", () => {
  it("parses a batch within the room whole, long lines included", () => {
    const lines = [line("a"), line("b".repeat(10_000))];
    expect(readLogBatch(JSON.stringify(lines), 2)).toEqual({ logs: lines, parsed: 2 });
  });

  it("keeps the entries that fit and counts the rest as holes", () => {
    const text = JSON.stringify([line("first"), line('x,"],[{}'.repeat(50)), line("z"), 7]);
    const { logs, parsed } = readLogBatch(text, 2);
    expect(logs).toHaveLength(4);
    expect(Object.keys(logs as unknown[])).toEqual(["0", "1"]);
    expect((logs as unknown[])[1]).toEqual(line('x,"],[{}'.repeat(50)));
    expect(parsed).toBe(2);
  });

  it("counts every entry as a hole without room, and refuses text that is not a list", () => {
    const { logs } = readLogBatch(JSON.stringify([line("a"), [], {}]), 0);
    expect(logs).toHaveLength(3);
    expect(Object.keys(logs as unknown[])).toEqual([]);
    expect(readLogBatch("[]", 0)).toEqual({ logs: [], parsed: 0 });
    expect(readLogBatch(JSON.stringify({ level: "log", message: "m" }), 0)).toEqual({
      logs: null,
      parsed: 0,
    });
  });
});
