/**
 * The front's memory budget for request bodies (cli/local-server/body-budget.mjs): one total for
 * every body held at once, counted per request as bytes arrive, given back once per request,
 * and its setting, `FRONT_BODY_BUDGET_MB`.
 */
import { describe, expect, it } from "vitest";
import {
  bodyBudgetSetting,
  createBodyBudget,
  DEFAULT_BODY_BUDGET_BYTES,
} from "../../../cli/local-server/body-budget.mjs";

describe("the front's body budget", () => {
  it("counts every request's bytes against one total and refuses what would cross it", () => {
    const budget = createBodyBudget(100);
    const a = budget.hold();
    const b = budget.hold();
    expect(a.add(60)).toBe(true);
    expect(b.add(30)).toBe(true);
    // 60 + 30 + 11 > 100: refused, and nothing of it counted.
    expect(b.add(11)).toBe(false);
    expect([budget.used(), a.held(), b.held()]).toEqual([90, 60, 30]);
    expect(b.add(10)).toBe(true);
    expect(budget.used()).toBe(100);
  });

  it("gives a request's bytes back once, however often it is told it ended", () => {
    const budget = createBodyBudget(100);
    const a = budget.hold();
    const b = budget.hold();
    a.add(70);
    b.add(20);
    a.release();
    a.release();
    expect(budget.used()).toBe(20);
    // A released hold takes nothing more (a late chunk of a refused body).
    expect(a.add(1)).toBe(false);
    expect(budget.used()).toBe(20);
    b.release();
    expect(budget.used()).toBe(0);
  });

  it("FRONT_BODY_BUDGET_MB: 64 MiB by default, whole MiB from 8 to 4096, else a message with the fix", () => {
    expect(DEFAULT_BODY_BUDGET_BYTES).toBe(64 * 1_048_576);
    expect(bodyBudgetSetting(undefined)).toEqual({ ok: true, bytes: DEFAULT_BODY_BUDGET_BYTES });
    expect(bodyBudgetSetting(" ")).toEqual({ ok: true, bytes: DEFAULT_BODY_BUDGET_BYTES });
    expect(bodyBudgetSetting("128")).toEqual({ ok: true, bytes: 128 * 1_048_576 });
    expect(bodyBudgetSetting("8")).toEqual({ ok: true, bytes: 8 * 1_048_576 });
    for (const bad of ["7", "4097", "1.5", "-8", "64MB", "lots"])
      expect(bodyBudgetSetting(bad)).toEqual({
        ok: false,
        message: expect.stringMatching(
          /^- FRONT_BODY_BUDGET_MB: ".*" is not a whole number from 8 to 4096\.\n {2}Fix: FRONT_BODY_BUDGET_MB=64 /,
        ),
      });
  });
});
