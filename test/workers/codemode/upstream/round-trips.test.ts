/**
 * What a `code` run costs a remote upstream, counted in HTTP requests and round trips (issue
 * #16's measurement, without timing): a run making k calls sends exactly k requests once the
 * isolate knows the upstream; a cold isolate (nothing cached: the client's earlier requests went
 * elsewhere) pays each era's protocol minimum once: 1 + k round trips against 2026-07-28, 2 + k
 * against a 2025-era upstream (see docs/library.md); a run opens no stream (not even the
 * 2025-era standalone GET) and ends no session of its own; only an upstream saying the session
 * is gone (404) causes a new handshake, without a second era probe.
 */
import { env } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../../src/codemode/code-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { createMcpHandler, type StatelessMcpHandler } from "../../../../src/index";
import { text } from "../../../helpers/clients/tool-result";
import {
  recordedDualEraUpstream,
  recordedLegacyUpstream,
  recordedModernUpstream,
  restartable,
  roundTrips,
  type Seen,
  type UpstreamFetch,
} from "./recorder";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

  /** Three chained upstream calls (k = 3): the projects, then the tasks of the first two. */
  const K = 3;
  const THREE_CALLS = `async () => {
  const { projects } = await codemode.list_projects({});
  const tasks = [];
  for (const p of projects.slice(0, 2)) tasks.push(...(await codemode.list_tasks({ projectId: p.id })).tasks);
  return tasks.length;
}`;
  const CALLS = Array.from({ length: K }, () => "POST tools/call");

  /** A code server over `fetch`, as one isolate would build it (its own caches). */
  function isolate(fetch: UpstreamFetch): StatelessMcpHandler {
    return createMcpHandler(
      codeMcpServer({ upstream: { url: "http://upstream.local/mcp", fetch }, executor }),
    );
  }

  /** An outer client whose requests go to whichever isolate `route()` names at the time. */
  async function client(route: () => StatelessMcpHandler): Promise<Client> {
    const c = new Client(
      { name: "test", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await c.connect(
      new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
        fetch: (url, init) => route().fetch(new Request(url, init)),
      }),
    );
    return c;
  }

  /** Runs the program and returns the upstream requests the run caused. */
  async function runSeen(c: Client, seen: Seen[], code = THREE_CALLS): Promise<Seen[]> {
    const start = seen.length;
    const result = await c.callTool({ name: "code", arguments: { code } });
    expect(result.isError, text(result)).toBeFalsy();
    return seen.slice(start);
  }

  /** Runs the program and returns what the upstream requests were (in order). */
  async function run(c: Client, seen: Seen[], code = THREE_CALLS): Promise<string[]> {
    return (await runSeen(c, seen, code)).map((s) => s.what);
  }

  const ERAS = [
    {
      era: "2026-07-28",
      upstream: recordedModernUpstream,
      // The probe and the tool listing go out together: one round trip before the calls. So does
      // a 2025-era `initialize` (the era is unknown yet); this server opens no session for it.
      cold: ["POST server/discover", "POST tools/list", "POST initialize"],
      coldRoundTrips: 1,
    },
    {
      era: "2025-era",
      upstream: recordedLegacyUpstream,
      // First contact: the probe, with the listing guessed alongside (refused without a session)
      // and `initialize` sent alongside too; then `notifications/initialized` and the listing
      // together (the notification sent first, its answer not awaited).
      cold: [
        "POST server/discover",
        "POST tools/list",
        "POST initialize",
        "POST notifications/initialized",
        "POST tools/list",
      ],
      coldRoundTrips: 2,
    },
  ] as const;

  describe("upstream requests per code run", () => {
    for (const { era, upstream, cold, coldRoundTrips } of ERAS) {
      it(`${era}: cold = ${coldRoundTrips} round trip(s) + k calls, then k calls per run`, async () => {
        const seen: Seen[] = [];
        const fetch = upstream(seen);
        let current = isolate(fetch);
        const c = await client(() => current);
        // The client's next request lands on a fresh isolate: nothing negotiated, nothing listed.
        current = isolate(fetch);
        const first = await runSeen(c, seen);
        expect(first.map((s) => s.what).toSorted()).toEqual([...cold, ...CALLS].toSorted());
        expect(first.slice(-K).map((s) => s.what)).toEqual(CALLS);
        expect(roundTrips(first), JSON.stringify(first)).toBe(coldRoundTrips + K);
        expect(await run(c, seen)).toEqual(CALLS);
        expect(await run(c, seen)).toEqual(CALLS);
        // No run opened a stream (GET) or ended a session (DELETE).
        expect(seen.filter((s) => !s.what.startsWith("POST"))).toEqual([]);
        await c.close();
      });

      it(`${era}: a warm isolate's first run for a new client sends only its calls`, async () => {
        const seen: Seen[] = [];
        const current = isolate(upstream(seen));
        const first = await client(() => current);
        await run(first, seen);
        const second = await client(() => current);
        expect(await run(second, seen)).toEqual(CALLS);
        await Promise.all([first.close(), second.close()]);
      });
    }

    it("the session is re-established only when the upstream says it is gone (404)", async () => {
      const seen: Seen[] = [];
      const upstream = restartable(seen);
      let failNext = false;
      const fetch: UpstreamFetch = async (input, init) => {
        if (!failNext) return upstream.fetch(input, init);
        failNext = false;
        seen.push({ auth: null, session: null, what: "POST tools/call (500)" });
        return new Response("upstream overloaded", { status: 500 });
      };
      const current = isolate(fetch);
      const c = await client(() => current);
      expect(await run(c, seen)).toEqual(CALLS);
      // Any other failure is the run's error; the session is kept.
      failNext = true;
      const failed = await c.callTool({ name: "code", arguments: { code: THREE_CALLS } });
      expect(failed.isError).toBe(true);
      expect(await run(c, seen)).toEqual(CALLS);
      // The upstream restarts: the first call gets 404, one handshake (no probe: the era is
      // known), then the call is resent.
      upstream.restart();
      expect(await run(c, seen)).toEqual([
        "POST tools/call",
        "POST initialize",
        "POST notifications/initialized",
        ...CALLS,
      ]);
      expect(await run(c, seen)).toEqual(CALLS);
      await c.close();
    });

    it("a dual-era upstream: 2026-07-28 is used, the session the early initialize opened is ended", async () => {
      const seen: Seen[] = [];
      const sessions = { issued: [] as string[], ended: [] as string[] };
      const current = isolate(recordedDualEraUpstream(seen, sessions));
      // The client's connect lists the tools: the probe, the guessed listing and `initialize`
      // go out together; the probe finds 2026-07-28, so the listing stands.
      const c = await client(() => current);
      expect(
        seen
          .filter((s) => s.what !== "DELETE")
          .map((s) => s.what)
          .toSorted(),
      ).toEqual(["POST server/discover", "POST tools/list", "POST initialize"].toSorted());
      // The unused session is ended (DELETE) without holding up anything, and a run waits for
      // that before it ends.
      const first = await runSeen(c, seen);
      expect(first.filter((s) => s.what !== "DELETE").map((s) => s.what)).toEqual(CALLS);
      expect(sessions.issued).toHaveLength(1);
      expect(sessions.ended).toEqual(sessions.issued);
      // The calls went out under 2026-07-28 (no session id); one DELETE in all.
      expect(first.filter((s) => s.what === "POST tools/call" && s.session !== null)).toEqual([]);
      expect(seen.filter((s) => s.what === "DELETE")).toHaveLength(1);
      expect(await run(c, seen)).toEqual(CALLS);
      await c.close();
    });
  });
});
