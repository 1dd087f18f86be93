/**
 * `execute` as an MCP task (2026-07-28 tasks extension) through `createMcpHandler`'s `tasks`
 * option, driven by real clients: the SDK v2 `Client` with the tasks extension's own requester
 * (`@modelcontextprotocol/ext-tasks`), over HTTP to the handler, the real sandbox and the real
 * task Durable Object (`MCP_TASKS`).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ApiRequest, ApiRequestHandler } from "../../../src/codemode/request/api-request";
import { openApiMcpServer } from "../../../src/codemode/openapi-mcp-server";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler, setTaskSupport } from "../../../src/index";
import { LEGACY, URL_LOCAL, legacyRequest } from "./fixtures";
import { connect, text, until } from "./task-clients";
import { NOTES_SPEC } from "../../helpers/specs/notes-spec";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 30_000 } });
const KEY = "tasks-test-request-state-key-0123456789abcdef";
const CLIENT_INFO = { name: "tasks-test", version: "1.0.0" };

/**
 * The upstream: records what reached it; the `holdAt`th request waits until `released`. Flags
 * and timers, not shared promises: the upstream runs in the task object's context, the test in
 * its own, and a promise resolved across the two would move the waiter into the other context.
 */
const upstream = { seen: [] as ApiRequest[], holdAt: 0, released: false };
const notes: ApiRequestHandler = async (request) => {
  upstream.seen.push(request);
  if (upstream.seen.length === upstream.holdAt) {
    for (let i = 0; i < 1000 && !upstream.released; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  return { status: 201, body: { id: `note${upstream.seen.length}` } };
};

// Module scope, as documented: the task object finds the handler that runs its rounds by name.
const approving = createMcpHandler(
  openApiMcpServer({ spec: NOTES_SPEC, executor, request: notes, approval: true }),
  {
    requestState: { key: KEY },
    tasks: { namespace: () => env.MCP_TASKS, name: "tasks-test-approving", pollIntervalMs: 50 },
  },
);
const plain = createMcpHandler(openApiMcpServer({ spec: NOTES_SPEC, executor, request: notes }), {
  tasks: { namespace: () => env.MCP_TASKS, name: "tasks-test-plain", pollIntervalMs: 50 },
});
const shortLived = createMcpHandler(
  openApiMcpServer({ spec: NOTES_SPEC, executor, request: notes }),
  { tasks: { namespace: () => env.MCP_TASKS, name: "tasks-test-short", ttlMs: 1500 } },
);

/** A tool that reports progress, then waits until `progressSeen` before it answers. */
const progress = { seen: false };
const reporting = createMcpHandler(
  () => {
    const server = new McpServer({ name: "progress", version: "1.0.0" });
    const tool = server.registerTool("crunch", { description: "Reports progress" }, async (ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 2, message: "half way" },
        });
      }
      // Bounded: a failed test must not leave a round spinning in the runtime.
      for (let i = 0; i < 1000 && !progress.seen; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return { content: [{ type: "text", text: "crunched" }] };
    });
    setTaskSupport(tool);
    return server;
  },
  { tasks: { namespace: () => env.MCP_TASKS, name: "tasks-test-progress" } },
);

describe("execute as an MCP task", () => {
  it("survives a client disconnect: reconnect, poll, approve, get the result", async () => {
    upstream.seen = [];
    upstream.holdAt = 0;
    const first = await connect(approving, { person: "away" });
    const execution = await first.session.callTool("execute", {
      code: `async () => (await codemode.request({ method: "POST", path: "/notes", body: { text: "milk" } })).id`,
    });
    expect(execution.kind).toBe("task");
    // The client keeps the task reference and goes away while the run waits for approval.
    let saved: { taskId: string } | undefined;
    if (execution.kind === "task") await execution.handoff((reference) => void (saved = reference));
    // Only the connection drops (closing the tasks session would cancel what it started).
    await first.client.close();
    const taskId = saved!.taskId;

    const second = await connect(approving);
    const task = second.session.task(taskId as never);
    const waiting = await until(
      () => task.snapshot(),
      (view) => view.status === "input_required",
    );
    const asked = (waiting.raw.inputRequests ?? {}) as Record<
      string,
      { params?: { message?: string } }
    >;
    expect(Object.keys(asked)).toEqual(["approve_request"]);
    expect(asked.approve_request!.params!.message).toContain("POST /notes");
    expect(upstream.seen).toHaveLength(0); // nothing is sent before the approval
    await task.update({ approve_request: { action: "accept", content: { approve: true } } });
    const outcome = await task.result();
    expect(outcome.status).toBe("completed");
    expect(text((outcome as { result: unknown }).result)).toBe("note1");
    expect(upstream.seen).toHaveLength(1);
    await second.close();
  });

  it("a cancelled task ends its sandbox run: no host call after the cancel", async () => {
    upstream.seen = [];
    upstream.holdAt = 3;
    upstream.released = false;
    const { session, close } = await connect(plain);
    const execution = await session.callTool("execute", {
      code: `async () => {
        for (let i = 0; i < 50; i++) await codemode.request({ method: "POST", path: "/notes", body: { i } });
        return "finished";
      }`,
    });
    expect(execution.kind).toBe("task");
    const task = session.task(execution.handle!.taskId);
    // The program is inside its third request.
    await until(
      async () => upstream.seen.length,
      (n) => n === 3,
    );
    await task.cancel();
    upstream.released = true; // the third request answers; a live program would send a fourth
    const view = await until(
      () => task.snapshot(),
      (v) => v.status !== "working",
    );
    expect(view.status).toBe("cancelled");
    // Give a still-running program ample room to make its next call, then check it made none.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(upstream.seen).toHaveLength(3);
    await execution.detach();
    await close();
  });

  it("without the tasks extension the same call runs synchronously, as before", async () => {
    upstream.seen = [];
    upstream.holdAt = 0;
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: "auto" } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(URL_LOCAL), {
        fetch: (url, init) => plain.fetch(new Request(url, init)),
      }),
    );
    const result = await client.callTool({
      name: "execute",
      arguments: {
        code: `async () => (await codemode.request({ method: "POST", path: "/notes", body: {} })).id`,
      },
    });
    expect(text(result)).toBe("note1");
    await client.close();
  });

  // With `tasks`, the stateless handler reads each 2025-era POST's body to find task requests;
  // what it read goes on to the SDK as parsedBody (read and parsed once). Its checks stay.
  it("a 2025-era body the task layer read goes on to the SDK: calls answer, its checks still apply", async () => {
    const post = (body: string, type = "application/json") =>
      plain.fetch(legacyRequest(body, { "content-type": type, "mcp-protocol-version": LEGACY }));
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" });
    const answered = await post(ping);
    expect(answered.status).toBe(200);
    expect(await answered.text()).toContain('"id":3');
    expect((await post(ping, "text/plain")).status).toBe(415);
    const unparseable = await post("{ not json");
    expect(unparseable.status).toBe(400);
    expect(await unparseable.text()).toContain("-32700");
  });

  it("a task is kept for its ttlMs, then gone (-32602), only its creator sees it, and a finished one no longer holds the creator's token", async () => {
    upstream.holdAt = 0;
    const alice = await connect(shortLived, { clientId: "alice" });
    const execution = await alice.session.callTool("execute", {
      code: `async () => (await codemode.request({ method: "POST", path: "/notes", body: {} })).id`,
    });
    expect(execution.kind).toBe("task");
    const taskId = execution.handle!.taskId;
    await execution.detach();
    const done = await until(
      () => alice.session.task(taskId).snapshot(),
      (view) => view.status === "completed",
    );
    expect(done.retentionMs).toBe(1500);
    // Finished: the creator's identity (its bearer token) is no longer kept at rest.
    const stored = await runInDurableObject(
      env.MCP_TASKS.get(env.MCP_TASKS.idFromName(taskId)),
      (_object, state) =>
        state.storage.sql.exec<{ record: string }>("SELECT record FROM task").toArray(),
    );
    expect(stored).toHaveLength(1);
    expect(JSON.parse(stored[0]!.record)).toMatchObject({
      status: "completed",
      owner: "client:alice",
    });
    expect(JSON.parse(stored[0]!.record)).not.toHaveProperty("authInfo");
    const mallory = await connect(shortLived, { clientId: "mallory" });
    await expect(mallory.session.task(taskId).snapshot()).rejects.toMatchObject({ code: -32602 });
    // Past the TTL the task is deleted: the same lookup now fails for its creator too.
    await until(
      () =>
        alice.session
          .task(taskId)
          .snapshot()
          .then(
            () => "alive",
            (error: { code?: number }) => error.code,
          ),
      (state) => state === -32602,
    );
    await mallory.client.close();
    await alice.client.close();
  });

  it("a round's progress notifications become the task's statusMessage", async () => {
    progress.seen = false;
    const { session, client } = await connect(reporting);
    const execution = await session.callTool("crunch", {});
    expect(execution.kind).toBe("task");
    const task = session.task(execution.handle!.taskId);
    const working = await until(
      () => task.snapshot(),
      (view) => view.statusMessage !== undefined,
    );
    expect(working.status).toBe("working");
    expect(working.statusMessage).toBe("1/2: half way");
    progress.seen = true;
    const outcome = await task.result();
    expect(text((outcome as { result: unknown }).result)).toBe("crunched");
    await execution.detach();
    await client.close();
  });
});
