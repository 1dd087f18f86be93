/**
 * The run history (#17): every search/execute/code run of the product is recorded off the run's
 * path in sharded Durable Objects and read back through `/api/runs` (listing with filters and a
 * cursor, one run by id), protected like `/mcp`; retention prunes old records.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runHistory } from "../../../../src/app/runs/run-history";
import type { RunRecord } from "../../../../src/codemode/runs/run-record";
import { connect } from "../../../helpers/clients/mcp-client";
import { sampleRun } from "../../../helpers/stores/run-records";
import { text } from "../../../helpers/clients/tool-result";
import { configured, type WorkerFetch } from "../helpers";

type Summary = {
  id: string;
  tool: string;
  outcome: string;
  calls: number;
  preview: string;
  caller: string;
  startedAt: number;
};
type Page = { runs: Summary[]; nextCursor?: string };

async function page(fetch: WorkerFetch, query = "", headers: Record<string, string> = {}) {
  const response = await fetch(`http://localhost/api/runs${query}`, {
    headers,
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Page;
}

/** Records are written after the result went back: wait (bounded) until `count` show up. */
async function runsMarked(fetch: WorkerFetch, marker: string, count: number, headers = {}) {
  for (let i = 0; i < 200; i++) {
    const mine = (await page(fetch, "?limit=200", headers)).runs.filter((r) =>
      r.preview.includes(marker),
    );
    if (mine.length >= count) return mine;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`fewer than ${count} runs marked ${marker} were recorded`);
}

async function run(
  fetch: WorkerFetch,
  path: string,
  tool: string,
  code: string,
  headers?: Record<string, string>,
) {
  const client = await connect(fetch, path, headers ? { headers } : {});
  try {
    return await client.callTool({ name: tool, arguments: { code } });
  } finally {
    await client.close();
  }
}

describe("run history", () => {
  it("records search, execute and code runs with their calls, newest first", async () => {
    const app = configured({});
    const m = `m${crypto.randomUUID().slice(0, 8)}`;
    await run(
      app,
      "/mcp",
      "search",
      `async () => { /* ${m} search */ return Object.keys((await codemode.spec()).paths).length; }`,
    );
    const executed = await run(
      app,
      "/mcp",
      "execute",
      `async () => { /* ${m} execute */
      console.log("listing");
      const projects = await codemode.request({ method: "GET", path: "/projects" });
      try { await codemode.request({ method: "GET", path: "/projects/999999" }); } catch {}
      try { await codemode.request({ method: "GET", path: "/projects/nope" }); } catch {}
      return projects.length;
    }`,
    );
    expect(executed.isError).toBeFalsy();
    await run(
      app,
      "/mcp/code",
      "code",
      `async () => { /* ${m} code */ return (await codemode.list_projects({})); }`,
    );

    const runs = await runsMarked(app, m, 3);
    expect(runs.map((r) => r.tool)).toEqual(["code", "execute", "search"]);
    expect(runs.every((r) => r.outcome === "ok" && r.caller === "anonymous")).toBe(true);

    const detail = (await (
      await app(`http://localhost/api/runs/${runs[1]!.id}`)
    ).json()) as RunRecord;
    expect(detail.code).toContain(`${m} execute`);
    expect(detail.calls).toEqual([
      expect.objectContaining({
        kind: "request",
        method: "GET",
        path: "/projects",
        status: 200,
        ok: true,
      }),
      expect.objectContaining({
        kind: "request",
        method: "GET",
        path: "/projects/999999",
        status: 404,
        ok: false,
      }),
      expect.objectContaining({
        kind: "request",
        path: "/projects/nope",
        ok: false,
        error: expect.stringContaining("Nothing was sent"),
      }),
    ]);
    expect(detail.calls[2]).not.toHaveProperty("status");
    expect(detail.logs.map((l) => l.message)).toEqual(["listing"]);
    expect(detail.result).toBe(text(executed));
    expect(detail.hostCalls).toBe(3);
    expect(detail.durationMs).toBeGreaterThanOrEqual(0);

    const code = (await (
      await app(`http://localhost/api/runs/${runs[0]!.id}`)
    ).json()) as RunRecord;
    expect(code.calls).toEqual([
      expect.objectContaining({
        kind: "tool",
        name: "list_projects",
        ok: true,
      }),
    ]);
  });

  it("filters by outcome and tool and pages with a cursor", async () => {
    const app = configured({});
    const m = `m${crypto.randomUUID().slice(0, 8)}`;
    await run(app, "/mcp", "execute", `async () => { /* ${m} fails */ throw new Error("boom"); }`);
    await run(app, "/mcp", "search", `async () => { /* ${m} ok */ return 1; }`);
    await runsMarked(app, m, 2);

    const errors = await page(app, "?outcome=error&limit=200");
    expect(errors.runs.length).toBeGreaterThan(0);
    expect(errors.runs.every((r) => r.outcome === "error")).toBe(true);
    expect(errors.runs.some((r) => r.preview.includes(m))).toBe(true);
    const searches = await page(app, "?tool=search&limit=200");
    expect(searches.runs.every((r) => r.tool === "search")).toBe(true);

    const first = await page(app, "?limit=1");
    expect(first.runs).toHaveLength(1);
    expect(first.nextCursor).toBeTypeOf("string");
    const second = await page(app, `?limit=1&cursor=${first.nextCursor}`);
    expect(second.runs[0]!.id).not.toBe(first.runs[0]!.id);
    expect(second.runs[0]!.startedAt).toBeLessThanOrEqual(first.runs[0]!.startedAt);

    const bad = await app("http://localhost/api/runs?outcome=weird");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
      "outcome must be one of ok, error, timeout, limit",
    );
    expect((await app("http://localhost/api/runs?cursor=zzz")).status).toBe(400);
    expect((await app("http://localhost/api/runs/2026-01-01.0000000000000000.abc")).status).toBe(
      404,
    );
    // An id that is no percent-encoding names no run: 404, not the 500 a URIError gave.
    for (const id of ["%E0", "%", "2026-01-01.%ZZ"]) {
      const response = await app(`http://localhost/api/runs/${id}`);
      expect(response.status, id).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
  });

  it("is protected like /mcp when an API key is set, and names the key holder as caller", async () => {
    const key = "runs-test-key-0123456789";
    const app = configured({ MCP_API_KEY: key });
    expect((await app("http://localhost/api/runs")).status).toBe(401);
    const auth = { authorization: `Bearer ${key}` };
    const m = `m${crypto.randomUUID().slice(0, 8)}`;
    await run(app, "/mcp", "search", `async () => { /* ${m} */ return 1; }`, auth);
    const [mine] = await runsMarked(app, m, 1, auth);
    expect(mine!.caller).toBe("api-key");
    expect((await app(`http://localhost/api/runs/${mine!.id}`)).status).toBe(401);
  });

  it("refuses the history when callers forward their own tokens: nothing identifies them, so none reads another's runs", async () => {
    const worker = configured({
      API_BASE_URL: "http://127.0.0.1:9/api",
      FORWARD_CALLER_TOKEN: "on",
    });
    for (const path of ["/api/runs", "/api/runs/2026-12-03.0123456789abcdef.00ff"]) {
      const response = await worker(`http://localhost${path}`, {
        headers: { authorization: "Bearer some-caller-token-123456" },
      });
      expect(response.status).toBe(403);
      const { error } = (await response.json()) as { error: Record<string, string> };
      expect(error.code).toBe("runs_private");
      expect(error.message).toContain("FORWARD_CALLER_TOKEN");
      expect(error.fix).toContain("OAuth");
    }
  });

  it("records nothing with RUNS=off and says so", async () => {
    const app = configured({ RUNS: "off" });
    const response = await app("http://localhost/api/runs");
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { fix: string } }).error.fix).toContain("RUNS=on");
  });
});

describe("run settings and the console", () => {
  it("names a bad retention setting and serves no MCP traffic until it is fixed", async () => {
    const app = configured({ RUNS_RETENTION_DAYS: "forever" });
    const health = await app("http://localhost/health");
    expect(health.status).toBe(503);
    expect(((await health.json()) as { error: { message: string } }).error.message).toContain(
      "RUNS_RETENTION_DAYS",
    );
    const status = (await (await app("http://localhost/api/status")).json()) as {
      problems: { setting: string; message: string; fix: string }[];
    };
    expect(status.problems).toEqual([
      expect.objectContaining({
        setting: "RUNS_RETENTION_DAYS",
        message: expect.stringContaining("whole number from 1 to 366"),
      }),
    ]);
    expect((await app("http://localhost/api/runs")).status).toBe(503);
  });

  it("puts the run console on the status page (table, both charts, detail), without runs in the HTML", async () => {
    const html = await (await configured({})("http://localhost/")).text();
    for (const id of [
      "runs-table",
      "chart-durations",
      "chart-outcomes",
      "run-detail",
      "run-program",
    ])
      expect(html).toContain(`id="${id}"`);
    expect(html).not.toContain('id="page-key"');
    const keyed = await (
      await configured({ MCP_API_KEY: "runs-test-key-0123456789" })("http://localhost/")
    ).text();
    // One key box for the page: the search form and the runs share it.
    expect(keyed.match(/type="password"/g)).toHaveLength(1);
    expect(keyed).toContain('id="page-key"');
    const off = await (await configured({ RUNS: "off" })("http://localhost/")).text();
    expect(off).toContain('id="runs-off"');
    expect(off).not.toContain('id="runs-table"');
  });
});

describe("run retention", () => {
  const record = (startedAt: number, n: number): RunRecord =>
    sampleRun(n, startedAt, `${n}`.padStart(8, "a"));

  it("keeps at most RUNS_RETENTION_COUNT runs per caller and day", async () => {
    const caller = `count-${crypto.randomUUID()}`;
    const history = runHistory(env.RUN_HISTORY, {
      retentionDays: 7,
      retentionCount: 2,
      retentionBytes: 2 ** 30,
    });
    const now = Date.now();
    for (let n = 1; n <= 4; n++) await history.record(record(now - 1000 + n, n), caller);
    const mine = (await history.list({ limit: 200 })).runs.filter((r) => r.caller === caller);
    expect(mine.map((r) => r.preview)).toEqual(["async () => 4", "async () => 3"]);
  });

  it("keeps at most RUNS_RETENTION_BYTES of runs per caller and day, newest first", async () => {
    const caller = `bytes-${crypto.randomUUID()}`;
    const history = runHistory(env.RUN_HISTORY, {
      retentionDays: 7,
      retentionCount: 1_000,
      retentionBytes: 25_000,
    });
    const now = Date.now();
    for (let n = 1; n <= 6; n++)
      await history.record({ ...record(now - 1000 + n, n), result: "r".repeat(10_000) }, caller);
    const mine = (await history.list({ limit: 200 })).runs.filter((r) => r.caller === caller);
    expect(mine.map((r) => r.preview)).toEqual(["async () => 6", "async () => 5"]);
  });

  it("derives a shard's id once per name and still stores every run in it", async () => {
    const caller = `ids-${crypto.randomUUID()}`;
    const names: string[] = [];
    // The real binding, its id derivation counted.
    const counted = new Proxy(env.RUN_HISTORY, {
      get(target, property) {
        if (property === "idFromName")
          return (name: string) => {
            names.push(name);
            return target.idFromName(name);
          };
        const value = Reflect.get(target, property) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const history = runHistory(counted, {
      retentionDays: 7,
      retentionCount: 100,
      retentionBytes: 2 ** 30,
    });
    const now = Date.now();
    for (let n = 1; n <= 3; n++) await history.record(record(now - 1000 + n, n), caller);
    const shards = names.filter((name) => name.startsWith("runs:"));
    expect(shards).toHaveLength(1);
    const mine = (await history.list({ limit: 200 })).runs.filter((r) => r.caller === caller);
    expect(mine.map((r) => r.preview)).toEqual(["async () => 3", "async () => 2", "async () => 1"]);
  });

  it("deletes runs older than RUNS_RETENTION_DAYS, shard and all", async () => {
    const caller = `age-${crypto.randomUUID()}`;
    let clock = Date.parse("2026-03-01T12:00:00Z");
    const history = runHistory(
      env.RUN_HISTORY,
      { retentionDays: 3, retentionCount: 100, retentionBytes: 2 ** 30 },
      () => clock,
    );
    await history.record(record(clock - 60_000, 1), caller);
    const old = (await history.list({ limit: 200 })).runs.find((r) => r.caller === caller)!;
    expect(old).toBeDefined();
    expect(await history.get(old.id)).toBeDefined();
    clock += 4 * 86_400_000;
    await history.record(record(clock - 1000, 2), caller);
    const after = (await history.list({ limit: 200 })).runs.filter((r) => r.caller === caller);
    expect(after.map((r) => r.preview)).toEqual(["async () => 2"]);
    expect(await history.get(old.id)).toBeUndefined();
    // The old day's shard was emptied, not just hidden.
    const [day, key] = old.id.split(".");
    const shard = env.RUN_HISTORY.get(env.RUN_HISTORY.idFromName(`runs:${day}:${key}`));
    expect(await shard.count()).toBe(0);
  });
});
