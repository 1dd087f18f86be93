/**
 * When a silent runner's replacement is prepared beside it, and when a prepared one is ended
 * (cli/local-server/runners/prepared-replacement.mjs), decided on plain slots at a given time. How they
 * are started, given up and swapped in: slot-preparation.test.ts; the pool's wiring of it:
 * runner-pool.test.ts ("prepared replacements").
 */
import { describe, expect, it } from "vitest";
import {
  PREPARE_AFTER_MS,
  needsPrepared,
  preparedUnwanted,
} from "../../../../cli/local-server/runners/prepared-replacement.mjs";

const NOW = 1_000_000;

function slot(lastAnswer: number, own: Record<string, unknown> = {}) {
  return {
    runtime: { lastAnswer, killedBecause: undefined as string | undefined, isRunning: () => true },
    retiring: false,
    preparing: false,
    prepared: null as unknown,
    ...own,
  };
}

describe("needsPrepared", () => {
  it("prepares for a runner silent for PREPARE_AFTER_MS, not sooner", () => {
    expect(needsPrepared(slot(NOW - PREPARE_AFTER_MS + 1), NOW)).toBe(false);
    expect(needsPrepared(slot(NOW - PREPARE_AFTER_MS), NOW)).toBe(true);
  });

  it("never twice, nor for a runner retiring, ended, or absent", () => {
    const silent = NOW - PREPARE_AFTER_MS;
    expect(needsPrepared(slot(silent, { preparing: true }), NOW)).toBe(false);
    expect(needsPrepared(slot(silent, { prepared: {} }), NOW)).toBe(false);
    expect(needsPrepared(slot(silent, { retiring: true }), NOW)).toBe(false);
    const ended = slot(silent);
    ended.runtime.killedBecause = "it was idle";
    expect(needsPrepared(ended, NOW)).toBe(false);
    expect(needsPrepared(slot(silent, { runtime: null }), NOW)).toBe(false);
  });
});

describe("preparedUnwanted", () => {
  it("ends a prepared runner once its runner answers again, or has gone another way", () => {
    expect(preparedUnwanted(slot(NOW - PREPARE_AFTER_MS, { prepared: {} }), NOW)).toBe(false);
    expect(preparedUnwanted(slot(NOW - 100, { prepared: {} }), NOW)).toBe(true);
    expect(
      preparedUnwanted(slot(NOW - PREPARE_AFTER_MS, { prepared: {}, retiring: true }), NOW),
    ).toBe(true);
    expect(preparedUnwanted(slot(NOW, { prepared: {}, runtime: null }), NOW)).toBe(true);
    expect(preparedUnwanted(slot(NOW - 100), NOW)).toBe(false);
  });
});
