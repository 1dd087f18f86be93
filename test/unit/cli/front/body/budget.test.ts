/**
 * The front's memory budget for request bodies (cli/local-server/front/body/budget.mjs): one total for
 * every body held at once, counted per request as bytes arrive, given back once per request.
 * Its setting, `FRONT_BODY_BUDGET_MB`, is tested with the launcher's settings.
 */
import { describe, expect, it } from "vitest";
import {
  ANSWER_SHARE,
  createBodyBudget,
} from "../../../../../cli/local-server/front/body/budget.mjs";

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
});

describe("who the full budget refuses", () => {
  it("ends the largest body being read to make room for a smaller one, never one read whole", () => {
    const budget = createBodyBudget(100);
    const evicted: string[] = [];
    const reading = (name: string, bytes: number) => {
      const hold = budget.hold();
      hold.onEvict = () => {
        evicted.push(name);
        hold.release();
      };
      expect(hold.add(bytes)).toBe(true);
      return hold;
    };
    const big = reading("big", 50);
    reading("middle", 30);
    // Read whole and passed on: no longer evictable, though it holds its bytes.
    const done = budget.hold();
    done.add(15);
    const small = budget.hold();
    small.onEvict = () => evicted.push("small");
    // 95 + 10 > 100: the largest one being read (50) is ended for the small one.
    expect(small.add(10)).toBe(true);
    expect(evicted).toEqual(["big"]);
    expect(big.held()).toBe(0);
    expect(budget.used()).toBe(55);
    expect(done.held()).toBe(15);
  });

  it("refuses the arriving body when none being read is larger than it would be", () => {
    const budget = createBodyBudget(100);
    const evicted: string[] = [];
    const a = budget.hold();
    a.onEvict = () => evicted.push("a");
    a.add(40);
    const b = budget.hold();
    b.onEvict = () => evicted.push("b");
    b.add(40);
    // b would hold 61 > 40: b itself is refused, a stays.
    expect(b.add(21)).toBe(false);
    expect(evicted).toEqual([]);
    expect(budget.used()).toBe(80);
    // Nor one that would be larger than every body being read (45 > 40).
    const c = budget.hold();
    expect(c.add(45)).toBe(false);
    expect(budget.used()).toBe(80);
  });
});

describe("answers held whole in the budget (issue #40)", () => {
  it("counts them in the total, at most their share, and never ends a body for them", () => {
    expect(ANSWER_SHARE).toBe(0.5);
    const budget = createBodyBudget(100);
    const evicted: string[] = [];
    const body = budget.hold();
    body.onEvict = () => evicted.push("body");
    expect(body.add(40)).toBe(true);
    const a = budget.answerHold();
    const b = budget.answerHold();
    expect(a.add(30)).toBe(true);
    // 30 + 21 > the answers' 50: refused (the answer streams instead), nothing counted.
    expect(b.add(21)).toBe(false);
    expect(b.add(20)).toBe(true);
    expect([budget.used(), budget.answersHeld()]).toEqual([90, 50]);
    // Within the share but over the total: refused, and the body being read is left alone.
    a.release();
    body.add(40);
    expect(b.add(15)).toBe(false);
    expect(evicted).toEqual([]);
    // Bodies keep their half: a body may still make room by ending the largest one being read.
    b.release();
    b.release();
    expect([budget.used(), budget.answersHeld()]).toEqual([80, 0]);
    expect(b.add(1)).toBe(false);
  });
});
