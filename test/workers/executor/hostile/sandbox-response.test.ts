/**
 * The host's reading of the sandbox's final response, fed what a tampered harness could
 * return: each malformed or oversized response must become a definite, bounded outcome.
 */
import { describe, expect, it } from "vitest";
import { HostBridge } from "../../../../src/executor/host-bridge";
import { prepareCode } from "../../../../src/executor/prepare-code";
import { responseToOutcome, type OutcomeBase } from "../../../../src/executor/sandbox-response";

const prepared = prepareCode("return 1");
if (!prepared.ok) throw new Error(prepared.message);
const code = prepared;
const base: OutcomeBase = {
  logs: [],
  droppedLogs: 0,
  calls: 0,
  truncated: false,
  resultBytes: 0,
  operations: 0,
  durationMs: 1,
};
const good = {
  result: '{"a":1}',
  truncated: false,
  resultBytes: 7,
  logs: [{ level: "log", message: "hi" }],
  droppedLogs: 0,
  operations: 3,
  budgetExhausted: false,
};

function read(value: unknown, maxResultBytes = 1_000) {
  const bridge = new HostBridge({}, { maxHostCalls: 10, maxCallBytes: 1_000, maxLogBytes: 100 });
  return responseToOutcome(value, bridge, code, base, maxResultBytes);
}

describe("the sandbox's response is checked before it is used", () => {
  it("reads a well-formed response", () => {
    expect(read(good)).toMatchObject({
      status: "ok",
      result: { a: 1 },
      logs: [{ level: "log", message: "hi" }],
      operations: 3,
    });
  });

  it.each([
    ["nothing", undefined, /not an object/],
    ["a string", "ok", /not an object/],
    ["a list", [good], /not an object/],
    ["a result that is not text", { ...good, result: { a: 1 } }, /result is not text/],
    ["an error without a message", { ...good, error: { name: "E" } }, /error name or message/],
    ["an error that is text", { ...good, error: "boom" }, /error is not an object/],
    [
      "a stack that is not text",
      { ...good, error: { name: "E", message: "m", stack: 1 } },
      /stack/,
    ],
    ["logs that are not a list", { ...good, logs: "hi" }, /logs is not a list/],
    ["a negative count", { ...good, droppedLogs: -1 }, /droppedLogs is not a count/],
    ["a count that is text", { ...good, operations: "3" }, /operations is not a count/],
    ["a flag that is not a boolean", { ...good, truncated: 1 }, /truncated is not a boolean/],
  ])("refuses %s as a malformed response", (_label, value, problem) => {
    const outcome = read(value);
    expect(outcome).toMatchObject({ status: "error", error: { name: "SandboxError" } });
    expect(outcome.error!.message).toMatch(problem);
    expect(outcome.error!.message).toMatch(/malformed response/);
    expect(outcome.result).toBeUndefined();
  });

  it("refuses a result over maxResultBytes without decoding it", () => {
    const outcome = read({ ...good, result: JSON.stringify("r".repeat(5_000_000)) }, 1_000);
    expect(outcome).toMatchObject({ status: "limit", error: { name: "LimitError" } });
    expect(outcome.error!.message).toMatch(/maxResultBytes limit of 1000 bytes/);
    expect(outcome.result).toBeUndefined();
    // Under the limit in units but over it in bytes.
    expect(read({ ...good, result: JSON.stringify("€".repeat(400)) }, 1_000).status).toBe("limit");
  });

  it("turns a result that is not JSON into a clear error", () => {
    expect(read({ ...good, result: "{nope" })).toMatchObject({
      status: "error",
      error: { name: "SandboxError", message: expect.stringMatching(/not valid JSON/) },
    });
  });

  it("cuts error names and messages and keeps only the stack's tail", () => {
    const outcome = read({
      ...good,
      result: undefined,
      error: {
        name: "N".repeat(1_000_000),
        message: "m".repeat(10_000_000),
        stack: "s".repeat(10_000_000),
      },
    });
    expect(outcome.status).toBe("error");
    expect(outcome.error!.name.length).toBeLessThanOrEqual(130);
    expect(outcome.error!.message.length).toBeLessThanOrEqual(8_100);
    expect(outcome.error!.message).toMatch(/…\[\+9992000 chars\]$/);
  });

  it("applies the console budget to the response's lines too", () => {
    const outcome = read({
      ...good,
      logs: Array.from({ length: 10_000 }, () => ({ level: "log", message: "L".repeat(1_000) })),
    });
    const kept = outcome.logs.reduce((n, l) => n + new TextEncoder().encode(l.message).length, 0);
    expect(kept).toBeLessThanOrEqual(100);
    expect(outcome.droppedLogs).toBe(9_999);
  });
});
