// When the host collects its garbage around a large body's redaction (issue #40): decided here,
// with the collection injected (the real `gc` exists only in the local server's host).
import { describe, expect, it, vi } from "vitest";
import {
  COLLECT_AFTER_BYTES,
  COLLECT_EVERY_PAUSES,
  collectAfterLargeBody,
  collectingPause,
  collectionBudget,
  MAX_COLLECTIONS_PER_RUN,
  MIN_COLLECTION_GAP_MS,
  mayCollect,
} from "../../../../src/codemode/request/large-body-collection";
import { secretRedactor } from "../../../../src/codemode/redaction/redaction";
import { noiseBytes } from "../../../helpers/redaction/seeded-noise";

/** A budget that never stands in the way: its clock moves a second per question. */
function openBudget() {
  let now = 0;
  return collectionBudget(() => (now += 1_000), { lastAt: Number.NEGATIVE_INFINITY });
}

/** A stand-in for V8's `gc`, recording the options of each call. */
function recordingGc(refuseOptions = false) {
  const calls: unknown[] = [];
  const gc = (options?: object) => {
    if (refuseOptions && options) throw new TypeError("options not supported");
    calls.push(options);
  };
  return { gc, calls };
}

describe("collection after a large body", () => {
  it("collects after a body of 1 MiB or more", () => {
    const { gc, calls } = recordingGc();
    expect(collectAfterLargeBody(COLLECT_AFTER_BYTES - 1, openBudget(), gc)).toBe(false);
    expect(calls).toEqual([]);
    expect(collectAfterLargeBody(COLLECT_AFTER_BYTES, openBudget(), gc)).toBe(true);
    expect(calls).toEqual([{ type: "major", execution: "sync" }]);
  });

  it("falls back to a plain collection where V8 refuses the options", () => {
    const { gc, calls } = recordingGc(true);
    expect(collectAfterLargeBody(4 * COLLECT_AFTER_BYTES, openBudget(), gc)).toBe(true);
    expect(calls).toEqual([undefined]);
  });

  it("does nothing where the runtime has no gc", () => {
    expect(collectAfterLargeBody(4 * COLLECT_AFTER_BYTES, openBudget(), undefined)).toBe(false);
  });
});

describe("the pause of a large body's sliced redaction", () => {
  const yieldThread = async () => {};

  it("is the plain pause for a small body or without gc", () => {
    const { gc } = recordingGc();
    expect(collectingPause(COLLECT_AFTER_BYTES - 1, yieldThread, openBudget(), gc)).toBe(
      yieldThread,
    );
    expect(collectingPause(COLLECT_AFTER_BYTES, yieldThread, openBudget(), undefined)).toBe(
      yieldThread,
    );
  });

  it("collects once every COLLECT_EVERY_PAUSES pauses, in one plain pass", async () => {
    const { gc, calls } = recordingGc();
    let yielded = 0;
    const pause = collectingPause(
      COLLECT_AFTER_BYTES,
      async () => void yielded++,
      openBudget(),
      gc,
    );
    for (let i = 0; i < 3 * COLLECT_EVERY_PAUSES + 1; i++) await pause();
    expect(yielded).toBe(3 * COLLECT_EVERY_PAUSES + 1);
    expect(calls).toEqual(Array.from({ length: 3 }, () => ({ type: "major", execution: "sync" })));
  });
});

describe("the run's budget over the bodies a program reads", () => {
  it("lasts four random 4 MiB bodies: each gets collections during its redaction", async () => {
    // The pauses of one real redaction of 4 MiB of random bytes (the most per MiB measured).
    const body = noiseBytes(4 * 1_048_576, 40);
    const redactor = secretRedactor(Object.freeze(["cf-canary-token-6f1d2c9a8b7e"]));
    let pauses = 0;
    expect(await redactor.cleanBytesInSlices(body, undefined, async () => void pauses++)).toBe(
      body,
    );
    // Four such bodies in one run, the host's gap never in the way: with a collection every 64
    // pauses the budget was spent during the second body, and the third and fourth got none.
    const { gc } = recordingGc();
    const budget = openBudget();
    const during: number[] = [];
    for (let b = 0; b < 4; b++) {
      const before = budget.used;
      const pause = collectingPause(body.length, async () => {}, budget, gc);
      for (let i = 0; i < pauses; i++) await pause();
      during.push(budget.used - before);
      collectAfterLargeBody(body.length, budget, gc);
    }
    expect(Math.min(...during)).toBeGreaterThan(0);
    expect(budget.used).toBeLessThanOrEqual(MAX_COLLECTIONS_PER_RUN);
  });
});

describe("the budget of forced collections (per run, with the host's gap)", () => {
  const state = (used: number, lastAt = Number.NEGATIVE_INFINITY) => ({ used, host: { lastAt } });

  it("allows a collection while the run has budget and the host's last is far enough", () => {
    expect(mayCollect(state(0), 0)).toBe(true);
    expect(mayCollect(state(MAX_COLLECTIONS_PER_RUN - 1), 0)).toBe(true);
    expect(mayCollect(state(MAX_COLLECTIONS_PER_RUN), 0)).toBe(false);
    expect(mayCollect(state(0, 1_000), 1_000 + MIN_COLLECTION_GAP_MS - 1)).toBe(false);
    expect(mayCollect(state(0, 1_000), 1_000 + MIN_COLLECTION_GAP_MS)).toBe(true);
  });

  it("counts what runs, spaces collections by the clock, and stops at the run's budget", () => {
    let now = 10_000;
    const host = { lastAt: Number.NEGATIVE_INFINITY };
    const budget = collectionBudget(() => now, host);
    let ran = 0;
    expect(budget.collect(() => ran++)).toBe(true);
    expect(host.lastAt).toBe(10_000);
    // Too soon after the last one: refused, and not counted.
    now += MIN_COLLECTION_GAP_MS - 1;
    expect(budget.collect(() => ran++)).toBe(false);
    expect(budget.used).toBe(1);
    for (let i = 1; i < MAX_COLLECTIONS_PER_RUN; i++) {
      now += MIN_COLLECTION_GAP_MS;
      expect(budget.collect(() => ran++)).toBe(true);
    }
    now += 60_000;
    expect(budget.collect(() => ran++)).toBe(false);
    expect([ran, budget.used]).toEqual([MAX_COLLECTIONS_PER_RUN, MAX_COLLECTIONS_PER_RUN]);
    // Another run has a budget of its own, but shares the host's gap.
    const other = collectionBudget(() => now, host);
    expect(other.collect(() => ran++)).toBe(true);
    expect(collectionBudget(() => now, host).collect(() => ran++)).toBe(false);
  });
});

// Hostile: a program that reads large bodies in a row chose every forced collection they cause,
// and each holds the host's thread for every client. Through the real path (apiRequester, one
// per run; V8's `gc` stood in for, as the local host exposes it), with a clock that never makes
// the host's gap stand in the way: only the run's budget bounds them. Before the budget, 30
// bodies of 1 MiB forced 30 collections.
describe("a run reading many large bodies", () => {
  it("forces at most its budget of collections, and the next run has its own", async () => {
    const calls: unknown[] = [];
    const saved = (globalThis as { gc?: unknown }).gc;
    let now = 0;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => (now += 1_000));
    (globalThis as { gc?: unknown }).gc = (options?: object) => void calls.push(options);
    try {
      vi.resetModules();
      const { apiRequester } = await import("../../../../src/codemode/api-requester");
      const { loadSpec } = await import("../../../../src/openapi/openapi-spec");
      const spec = loadSpec({
        openapi: "3.0.3",
        info: { title: "blobs", version: "1" },
        paths: {
          "/blob": { get: { operationId: "getBlob", responses: { 200: { description: "ok" } } } },
        },
      });
      const body = "a".repeat(COLLECT_AFTER_BYTES);
      const run = () =>
        apiRequester({
          spec,
          handler: () => new Response(body, { headers: { "content-type": "text/plain" } }),
          validate: true,
          secrets: ["s3cret-token"],
          mcp: {} as never,
        });
      const signal = new AbortController().signal;
      const first = run();
      for (let i = 0; i < 30; i++) await first({ method: "GET", path: "/blob" }, signal);
      expect(calls.length).toBe(MAX_COLLECTIONS_PER_RUN);
      const second = run();
      await second({ method: "GET", path: "/blob" }, signal);
      // Its own budget: one collection after the body, and one during it when its redaction
      // paused COLLECT_EVERY_PAUSES times (a 1 MiB word is a run and a token that every pass
      // over it now pauses inside: issue #40).
      expect(calls.length).toBeGreaterThan(MAX_COLLECTIONS_PER_RUN);
      expect(calls.length).toBeLessThanOrEqual(MAX_COLLECTIONS_PER_RUN + 2);
    } finally {
      clock.mockRestore();
      (globalThis as { gc?: unknown }).gc = saved;
      vi.resetModules();
    }
  });
});
