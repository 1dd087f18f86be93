/**
 * Captures one console channel for the rest of a test, so a test that provokes a logged
 * failure asserts on the log instead of printing it: a passing run stays quiet and the log is
 * checked. The spy is restored when the test finishes, pass or fail (a workerd project's files
 * share one isolate, so a leaked spy would silence the next file).
 */
import { onTestFinished, vi } from "vitest";

/**
 * Starts capturing `console[method]`; returns a function giving everything printed so far, one
 * string per call (its arguments joined by spaces, errors as `Name: message`).
 * @param method - the console method the code under test logs with
 */
export function captureConsole(method: "error" | "warn" | "log"): () => string {
  const lines: string[] = [];
  const spy = vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
  });
  onTestFinished(() => spy.mockRestore());
  return () => lines.join("\n");
}
