/**
 * The run history's shard day (issue #43): the last day's name is kept with its start, so the
 * answer must stay what formatting the time gives, on both sides of every UTC midnight and when
 * times go back as well as forward.
 */
import { describe, expect, it } from "vitest";
import { dayOf } from "../../../../src/app/runs/run-history";

const DAY_MS = 86_400_000;
const formatted = (time: number) => new Date(time).toISOString().slice(0, 10);

describe("dayOf", () => {
  it("names each time's UTC day, around midnights, forward and back", () => {
    const midnight = Date.UTC(2026, 11, 6);
    const times = [
      midnight - 1,
      midnight,
      midnight + 1,
      midnight + DAY_MS - 1,
      midnight + DAY_MS,
      midnight - 1,
      midnight - DAY_MS,
      midnight - DAY_MS - 1,
      midnight + 12.5,
      0,
      -1,
      -DAY_MS,
      Date.UTC(2028, 1, 29, 23, 59, 59, 999),
      Date.UTC(2028, 2, 1),
      Date.UTC(2028, 1, 29, 12),
    ];
    for (const time of times) expect([time, dayOf(time)]).toEqual([time, formatted(time)]);
  });

  it("refuses a time no date has, as formatting it does", () => {
    expect(() => dayOf(Number.NaN)).toThrow(RangeError);
    // The last day a Date reaches, then the millisecond after it (the day's name is kept).
    expect(dayOf(8.64e15)).toBe(formatted(8.64e15));
    expect(() => dayOf(8.64e15 + 1)).toThrow(RangeError);
    expect(dayOf(-8.64e15 + DAY_MS - 1)).toBe(formatted(-8.64e15));
    // The last good day is still answered after a refusal.
    expect(dayOf(Date.UTC(2026, 0, 1, 5))).toBe("2026-01-01");
  });
});
