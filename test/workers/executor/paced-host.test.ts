/**
 * PacedHost (src/executor/runners/sandbox-runner.ts), the host bridge a program sees through a
 * local sandbox runner: at most 32 calls of a run reach the host at once, and a program flooding
 * calls cannot make the runner (which other runs share) hold more than 1,000 waiting calls or
 * 16 MiB of their arguments: past that a call is answered with a LimitError at once.
 */
import { describe, expect, it } from "vitest";
import {
  HOST_CALLS_IN_FLIGHT,
  MAX_WAITING_CALLS,
  MAX_WAITING_CHARS,
  PacedHost,
} from "../../../src/executor/runners/sandbox-runner";

/** A host whose calls never answer, counting what reached it. */
function stuckHost() {
  const reached: unknown[] = [];
  return {
    reached,
    call: (_ns: unknown, _name: unknown, argsText: unknown) => {
      reached.push(argsText);
      return new Promise<unknown>(() => {});
    },
  };
}

const settledNow = async (promise: Promise<unknown>) =>
  Promise.race([promise, new Promise((r) => setTimeout(r, 20, "pending"))]);

describe("PacedHost", () => {
  it("lets 32 calls reach the host, keeps the rest waiting in order", async () => {
    const host = stuckHost();
    const paced = new PacedHost(host);
    for (let i = 0; i < HOST_CALLS_IN_FLIGHT + 5; i++)
      void paced.call("codemode", "f", `${i}`, undefined);
    await settledNow(Promise.resolve());
    expect(host.reached).toHaveLength(HOST_CALLS_IN_FLIGHT);
  });

  it("refuses a call past the waiting count, at once, without reaching the host", async () => {
    const host = stuckHost();
    const paced = new PacedHost(host);
    for (let i = 0; i < HOST_CALLS_IN_FLIGHT + MAX_WAITING_CALLS; i++)
      void paced.call("codemode", "f", "[]", undefined);
    const refused = await settledNow(paced.call("codemode", "f", "[]", undefined));
    expect(refused).toMatchObject({ error: { name: "LimitError" } });
    expect(host.reached).toHaveLength(HOST_CALLS_IN_FLIGHT);
  });

  it("refuses a call past the waiting argument text, at once", async () => {
    const host = stuckHost();
    const paced = new PacedHost(host);
    for (let i = 0; i < HOST_CALLS_IN_FLIGHT; i++)
      void paced.call("codemode", "f", "[]", undefined);
    const quarter = "x".repeat(MAX_WAITING_CHARS / 4);
    for (let i = 0; i < 4; i++) void paced.call("codemode", "f", quarter, undefined);
    const refused = await settledNow(paced.call("codemode", "f", "[1]", undefined));
    expect(refused).toMatchObject({
      error: { name: "LimitError", message: /characters of arguments/ },
    });
  });
});
