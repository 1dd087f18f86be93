/**
 * RunStore's write cost (#17): storing a run into a shard that is at its retention count reads a
 * few rows, not the whole shard (SQLite-backed Durable Objects bill rows read, and under
 * `npm start` the write shares the Worker's thread), and the count stays exact; the byte budget
 * per caller and day (#29) holds.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { utf8Length, type RunStore, type StoredRun } from "../../../../src/app/runs/run-store";
import { sampleRun } from "../../../helpers/stores/run-records";

const run = (n: number): StoredRun => ({
  ...sampleRun(
    n,
    Date.parse("2026-03-01T12:00:00Z") + n,
    `2026-03-01.0000000000000000.${n.toString(16).padStart(8, "0")}`,
    "execute",
  ),
  caller: "anonymous",
});

it("stores a run into a full shard reading a few rows, keeping exactly the newest", async () => {
  const stub = env.RUN_HISTORY.get(env.RUN_HISTORY.idFromName(`store-${crypto.randomUUID()}`));
  const retention = { cutoff: 0, count: 500, bytes: 2 ** 40 };
  await runInDurableObject(stub, (store: RunStore, state) => {
    for (let n = 0; n < 600; n++) store.add(run(n), retention);
    // Observe the real statements' cursors (nothing is replaced).
    const sql = state.storage.sql;
    const exec = sql.exec.bind(sql);
    let rowsRead = 0;
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      const cursor = exec(query, ...bindings);
      cursor.toArray();
      rowsRead += cursor.rowsRead;
      return cursor;
    }) as typeof sql.exec;
    try {
      store.add(run(600), retention);
    } finally {
      sql.exec = exec;
    }
    expect(rowsRead).toBeLessThan(20);
    expect(store.count()).toBe(500);
    const newest = store.list({ limit: 500 });
    expect(newest[0]!.preview).toBe("async () => 600");
    expect(newest[499]!.preview).toBe("async () => 101");
  });
});

it("keeps a shard under its byte budget, dropping the oldest records first", async () => {
  const stub = env.RUN_HISTORY.get(env.RUN_HISTORY.idFromName(`store-${crypto.randomUUID()}`));
  await runInDurableObject(stub, (store: RunStore) => {
    // Each record about 10 KB as stored; a budget of 50,000 bytes holds four of them.
    const big = (n: number): StoredRun => ({ ...run(n), result: "r".repeat(10_000) });
    const retention = { cutoff: 0, count: 1_000, bytes: 50_000 };
    for (let n = 0; n < 30; n++) store.add(big(n), retention);
    expect(store.bytes()).toBeLessThanOrEqual(50_000);
    expect(store.bytes()).toBeGreaterThan(30_000);
    const kept = store.list({ limit: 100 }).map((summary) => summary.preview);
    expect(kept[0]).toBe("async () => 29");
    expect(kept.length).toBeLessThan(5);
    expect(kept).not.toContain("async () => 0");
  });
});

it("runs the cutoff delete only when a record held may be past the cutoff, and still drops those (issue #43)", async () => {
  const stub = env.RUN_HISTORY.get(env.RUN_HISTORY.idFromName(`store-${crypto.randomUUID()}`));
  await runInDurableObject(stub, async (store: RunStore, state) => {
    const sql = state.storage.sql;
    const exec = sql.exec.bind(sql);
    let cutoffDeletes = 0;
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      if (query.startsWith("DELETE FROM runs WHERE started_at <=")) cutoffDeletes++;
      return exec(query, ...bindings);
    }) as typeof sql.exec;
    try {
      const start = run(0).startedAt;
      const keepAll = { cutoff: start - 1, count: 1_000, bytes: 2 ** 40 };
      for (let n = 0; n < 20; n++) store.add(run(n), keepAll);
      expect(cutoffDeletes).toBe(0);
      expect(store.count()).toBe(20);
      // The clock moved: runs 0–9 are past the cutoff and go with the next write.
      store.add(run(20), { ...keepAll, cutoff: start + 9 });
      expect(cutoffDeletes).toBe(1);
      expect(store.count()).toBe(11);
      expect(store.list({ limit: 100 }).at(-1)!.preview).toBe("async () => 10");
      // Emptied and written again: the earliest is read back, nothing deleted needlessly.
      await store.clear();
      store.add(run(30), { ...keepAll, cutoff: start + 9 });
      expect(cutoffDeletes).toBe(1);
      store.add(run(31), { ...keepAll, cutoff: start + 30 });
      expect(cutoffDeletes).toBe(2);
      expect(store.list({ limit: 10 }).map((s) => s.preview)).toEqual(["async () => 31"]);
    } finally {
      sql.exec = exec;
    }
  });
});

it("counts a record's UTF-8 bytes without encoding ASCII text", () => {
  const encoder = new TextEncoder();
  for (const text of [
    "",
    'plain ascii {"a":1}',
    "é",
    "日本語",
    "\ud800 lone",
    "\u{1f600}",
    "a\u007fb",
  ])
    expect(utf8Length(text)).toBe(encoder.encode(text).byteLength);
});
