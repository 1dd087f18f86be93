/**
 * A request's caller as the cut-off gate asks it (cli/local-server/front/callers/caller-wait.mjs):
 * not named yet while a look for its connection is coming and it may start a run, for at most
 * its wait; the clock injected, a made-up socket.
 */
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { callerOnceNamed } from "../../../../../cli/local-server/front/callers/caller-wait.mjs";
import { NOT_NAMED_YET } from "../../../../../cli/local-server/front/cut-off-gate.mjs";

const socket = {} as Socket;

/** Callers whose key, look and what the table showed the test sets. */
function callers() {
  const state = { key: "unknown", looking: true, seenAs: undefined as string | undefined };
  return {
    state,
    of: () => state.key,
    looking: () => state.looking,
    seenAs: () => state.seenAs,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a request's caller once named (caller-wait.mjs)", () => {
  it("is not named yet while its connection's look is coming, then its key", () => {
    const c = callers();
    const naming = callerOnceNamed(c, socket, { method: "POST", due: () => {} });
    expect(naming.caller()).toBe(NOT_NAMED_YET);
    c.state.key = "process:42";
    c.state.looking = false;
    expect(naming.caller()).toBe("process:42");
    naming.stop();
  });

  it("goes on as unknown when the look gave up on the socket (closed, not found)", () => {
    const c = callers();
    c.state.looking = false;
    const naming = callerOnceNamed(c, socket, { method: "POST", due: () => {} });
    expect(naming.caller()).toBe("unknown");
  });

  it("never waits for a read or a preflight: they start no run", () => {
    for (const method of ["GET", "HEAD", "OPTIONS"]) {
      const naming = callerOnceNamed(callers(), socket, { method, due: () => {} });
      expect(naming.caller()).toBe("unknown");
    }
  });

  it("never waits where no look can come (callers without `looking`)", () => {
    const naming = callerOnceNamed({ of: () => "" }, socket, { method: "POST", due: () => {} });
    expect(naming.caller()).toBe("");
  });

  it("waits CALLER_WAIT_MS at most: then says it is due once, and goes on as unknown", async () => {
    let now = 0;
    let due = 0;
    const naming = callerOnceNamed(callers(), socket, {
      method: "POST",
      due: () => due++,
      maxMs: 20,
      now: () => now,
    });
    expect(naming.caller()).toBe(NOT_NAMED_YET);
    expect(naming.caller()).toBe(NOT_NAMED_YET);
    now = 20;
    await sleep(40);
    expect(due).toBe(1);
    expect(naming.caller()).toBe("unknown");
  });

  it("waits on for a socket the table showed, then goes by its user's key, never unknown", async () => {
    // attack29: a process that hid its sockets behind 15,000 descriptors was given its user's
    // key only after two scans, a second apart; its requests went on at 1 s as `unknown`,
    // placed as nobody (every runner taken; another process's search waited 4.6 s).
    let now = 0;
    let due = 0;
    const c = callers();
    const naming = callerOnceNamed(c, socket, {
      method: "POST",
      due: () => due++,
      maxMs: 20,
      seenMaxMs: 60,
      now: () => now,
    });
    expect(naming.caller()).toBe(NOT_NAMED_YET);
    c.state.seenAs = "user:1000";
    now = 20;
    // Past the wait for an unseen socket: it waits on for its holder's scans.
    expect(naming.caller()).toBe(NOT_NAMED_YET);
    now = 60;
    await sleep(100);
    // Once, for the longer wait (the first timer was replaced before it ran out).
    expect(due).toBe(1);
    expect(naming.caller()).toBe("user:1000");
    // Stopped (let in), it is sent by the same key.
    naming.stop();
    expect(naming.caller()).toBe("user:1000");
  });

  it("a socket the table showed is named by its holder's process when found meanwhile", () => {
    let now = 0;
    const c = callers();
    const naming = callerOnceNamed(c, socket, {
      method: "POST",
      due: () => {},
      maxMs: 20,
      seenMaxMs: 60,
      now: () => now,
    });
    c.state.seenAs = "user:1000";
    now = 40;
    expect(naming.caller()).toBe(NOT_NAMED_YET);
    c.state.key = "process:42";
    c.state.looking = false;
    expect(naming.caller()).toBe("process:42");
    naming.stop();
  });

  it("waits for the first look however slow the looks (up to maxMs), then its user's key at once", () => {
    // attack29: looks of up to ~0.9 s rest four times that; a request that went on at 1 s
    // before any look read the table went as `unknown` (placed for nobody): 900 hidden
    // connections' requests mostly did, and another process's search waited 5.4-10.5 s.
    let now = 0;
    const c = callers();
    const naming = callerOnceNamed(c, socket, {
      method: "POST",
      due: () => {},
      maxMs: 100,
      seenMaxMs: 50,
      now: () => now,
    });
    now = 70;
    expect(naming.caller()).toBe(NOT_NAMED_YET);
    // The look came: its socket seen, its holder not found, past the scans' wait already.
    c.state.seenAs = "user:1000";
    expect(naming.caller()).toBe("user:1000");
    naming.stop();
  });

  it("says nothing once stopped (the request was let in or dropped)", async () => {
    let due = 0;
    const naming = callerOnceNamed(callers(), socket, {
      method: "POST",
      due: () => due++,
      maxMs: 10,
    });
    expect(naming.caller()).toBe(NOT_NAMED_YET);
    naming.stop();
    await sleep(30);
    expect(due).toBe(0);
  });
});
