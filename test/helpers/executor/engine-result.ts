/** What a plain-Node engine test reads of a finished `EngineRun`. */
import { expect } from "vitest";

/**
 * A program's result, parsed; fails the test on a stop or an error.
 * @param outcome - the run's `result` (the engine's JSON answer text)
 */
export async function resultOf(outcome: Promise<unknown>): Promise<unknown> {
  const text = await outcome;
  expect(typeof text).toBe("string");
  const response = JSON.parse(text as string) as { result?: string; error?: unknown };
  expect(response.error).toBeUndefined();
  return JSON.parse(response.result!);
}
