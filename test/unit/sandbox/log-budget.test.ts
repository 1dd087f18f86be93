// createLogBudget and clipUtf8: the sandbox's bound on captured log output.
import { describe, expect, it } from "vitest";
import { createLogBudget, LOG_CUT_MARK } from "../../../sandbox/log-budget";
import { clipUtf8 } from "../../../sandbox/truncate";

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

describe("createLogBudget", () => {
  it("charges each line its UTF-8 bytes plus one, so empty lines are not free", () => {
    const budget = createLogBudget(10);
    for (let i = 0; i < 10; i++) expect(budget.admit("")).toBe("");
    expect(budget.full()).toBe(true);
    expect(budget.admit("")).toBeUndefined();
    expect(budget.dropped()).toBe(1);
  });
  it("cuts the line that does not fit, marks it, and spends the budget", () => {
    const budget = createLogBudget(40);
    expect(budget.admit("abc")).toBe("abc");
    const cut = budget.admit("é".repeat(100))!;
    expect(cut.endsWith(LOG_CUT_MARK)).toBe(true);
    expect(4 + bytes(cut) + 1).toBeLessThanOrEqual(40);
    expect(budget.full()).toBe(true);
    expect(budget.admit("x")).toBeUndefined();
  });
  it("drops a line when not even the mark fits", () => {
    const budget = createLogBudget(10);
    expect(budget.admit("x".repeat(50))).toBeUndefined();
    expect(budget.dropped()).toBe(1);
  });
  it("never measures a huge line whole", () => {
    const budget = createLogBudget(100);
    const huge = "h".repeat(20_000_000);
    const kept = budget.admit(huge)!;
    expect(bytes(kept) + 1).toBeLessThanOrEqual(100);
  });
});

describe("clipUtf8", () => {
  it("keeps whole characters within the byte budget", () => {
    expect(clipUtf8("aé€😀", 3)).toBe("aé");
    expect(clipUtf8("aé€😀", 6)).toBe("aé€");
    expect(clipUtf8("😀😀", 5)).toBe("😀");
    expect(clipUtf8("abc", 10)).toBe("abc");
  });
  it("counts a lone surrogate as the 3 bytes of U+FFFD, not as half of a pair", () => {
    const line = "\ud800€".repeat(100);
    const kept = clipUtf8(line, 60);
    expect(new TextEncoder().encode(kept).byteLength).toBeLessThanOrEqual(60);
    expect(kept).toBe("\ud800€".repeat(10));
  });
});
