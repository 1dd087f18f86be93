/**
 * 2025-11-25 tasks on the product's `/mcp` (the stateless legacy lane of `createMcpHandler` with
 * `tasks: MCP_TASKS`), driven by a real SDK v1 client and its experimental tasks API over HTTP
 * to the deployed entry: task-augmented `tools/call`, `tasks/get`, `tasks/result` (which relays
 * an approval as an elicitation tied to the task), `tasks/cancel`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { text } from "../../../helpers/clients/tool-result";
import { configured, createTask, entry, poster, type WorkerFetch } from "../helpers";

const STATE_KEY = "app-test-request-state-key-0123456789abcdef";
const READ = `async () => { const r = await codemode.request({ method: "GET", path: "/projects", response: "full" }); return r.status; }`;

async function v1Client(worker: WorkerFetch, answers?: { asked: unknown[] }) {
  const client = new Client(
    { name: "v1-tasks", version: "1.0.0" },
    { capabilities: { elicitation: {}, tasks: {} } as never },
  );
  if (answers !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      answers.asked.push(request.params);
      return { action: "accept", content: { approve: true } };
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), { fetch: worker as never }),
  );
  // As clients do: the listing's execution.taskSupport is what makes callToolStream ask for a task.
  await client.listTools();
  return client;
}

/** Calls `execute` as a task and returns its id as soon as the task exists (the client leaves). */
async function startTask(client: Client, code: string): Promise<string> {
  for await (const message of client.experimental.tasks.callToolStream(
    { name: "execute", arguments: { code } },
    CallToolResultSchema,
  )) {
    if (message.type === "taskCreated") return message.task.taskId;
    throw new Error(`expected a task, got ${JSON.stringify(message)}`);
  }
  throw new Error("the call ended without a task");
}

async function statusOf(client: Client, taskId: string, until: (status: string) => boolean) {
  for (let i = 0; i < 400; i++) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (until(task.status)) return task;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`task ${taskId} did not reach the expected status`);
}

const count = async (title: string) =>
  (
    (await (
      await entry(`http://localhost/demo-api/tasks?q=${encodeURIComponent(title)}`)
    ).json()) as { total: number }
  ).total;

const writes = (title: string, n: number) => `async () => {
  for (let i = 0; i < ${n}; i++) await codemode.request({ method: "POST", path: "/tasks", body: { projectId: 3, title: ${JSON.stringify(title)} } });
  return "wrote ${n}";
}`;

describe("2025-11-25 tasks on the product's /mcp (SDK v1 client)", () => {
  it("declares tasks and marks execute (not search) as able to run as one", async () => {
    const client = await v1Client(entry);
    expect(client.getServerCapabilities()?.tasks).toEqual({
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toEqual({ search: undefined, execute: "optional" });
    await client.close();
  });

  it("runs execute as a task: created at once, polled, its result read with tasks/result", async () => {
    const client = await v1Client(entry);
    const messages: { type: string; task?: { status: string }; result?: unknown }[] = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "execute", arguments: { code: READ } },
      CallToolResultSchema,
    )) {
      messages.push(message as never);
    }
    expect(messages[0]!.type, JSON.stringify(messages)).toBe("taskCreated");
    const last = messages.at(-1)!;
    expect(last.type, JSON.stringify(messages)).toBe("result");
    expect(text(last.result)).toBe("200");
    expect((last.result as { _meta?: Record<string, unknown> })._meta).toMatchObject({
      "io.modelcontextprotocol/related-task": {},
    });
    await client.close();
  });

  it("/mcp/code serves the same: its code tool runs as a task for a 2025 client", async () => {
    const client = new Client({ name: "v1-code", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://localhost/mcp/code"), {
        fetch: entry as never,
      }),
    );
    const { tools } = await client.listTools();
    expect(tools[0]!.execution?.taskSupport).toBe("optional");
    const messages: { type: string; result?: unknown }[] = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: tools[0]!.name, arguments: { code: "async () => 6 * 7" } },
      CallToolResultSchema,
    )) {
      messages.push(message as never);
    }
    expect(messages.map((m) => m.type)).toContain("taskCreated");
    expect(text(messages.at(-1)!.result)).toContain("42");
    await client.close();
  });

  it("without params.task the same call answers synchronously, as before", async () => {
    const client = await v1Client(entry);
    const result = await client.callTool({ name: "execute", arguments: { code: READ } });
    expect(text(result)).toBe("200");
    await client.close();
  });

  it("tasks/cancel ends the sandbox run: no write after the cancel", async () => {
    const title = `Cancelled ${crypto.randomUUID().slice(0, 8)}`;
    const client = await v1Client(entry);
    const taskId = await startTask(client, writes(title, 900));
    for (let i = 0; i < 400 && (await count(title)) < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe("cancelled");
    const atCancel = await count(title);
    expect(atCancel).toBeGreaterThanOrEqual(3);
    // A still-running program writes one task every few milliseconds: give it ample room.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const later = await count(title);
    expect(later - atCancel).toBeLessThanOrEqual(1); // at most the write in flight at the cancel
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("cancelled");
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/already cancelled/);
    await client.close();
  });

  it("answers unknown tasks and tasks/list with errors that say what to do", async () => {
    const client = await v1Client(entry);
    await expect(client.experimental.tasks.getTask("no-such-task")).rejects.toThrow(
      /-32602.*Unknown task "no-such-task"/,
    );
    const listed = await poster(entry)({ id: 7, method: "tasks/list", params: {} });
    const body = (await listed.json()) as { id: number; error: { code: number; message: string } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32601);
    expect(body.error.message).toMatch(/keep the taskId/i);
    await client.close();
  });

  // Last two: their handler (APPROVALS=on) becomes the one the task objects run "/mcp" rounds through.
  it("an approval waits in the task across a disconnect: reconnect, poll, approve in tasks/result", async () => {
    const title = `Approved ${crypto.randomUUID().slice(0, 8)}`;
    const worker = configured({ APPROVALS: "on", REQUEST_STATE_KEY: STATE_KEY });
    const first = await v1Client(worker);
    const taskId = await startTask(first, writes(title, 1));
    await first.close(); // the client goes away while the run waits for the person

    const answers = { asked: [] as unknown[] };
    const second = await v1Client(worker, answers);
    await statusOf(second, taskId, (status) => status === "input_required");
    expect(await count(title)).toBe(0); // nothing is sent before the approval
    const result = await second.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(text(result)).toBe("wrote 1");
    expect(answers.asked).toHaveLength(1);
    const asked = answers.asked[0] as { message: string; _meta: Record<string, unknown> };
    expect(asked.message).toContain("POST /tasks");
    expect(asked._meta["io.modelcontextprotocol/related-task"]).toEqual({ taskId });
    expect(await count(title)).toBe(1);
    expect((await second.experimental.tasks.getTask(taskId)).status).toBe("completed");
    await second.close();
  });

  it("an answer names its task and input round: a stale or foreign answer approves nothing", async () => {
    const title = `Stale ${crypto.randomUUID().slice(0, 8)}`;
    const worker = configured({ APPROVALS: "on", REQUEST_STATE_KEY: STATE_KEY });
    const post = poster(worker);
    const { taskId, ttl } = await createTask(post, writes(title, 1));
    expect(ttl).toBe(60_000);
    const status = async () =>
      (
        (await (await post({ id: 2, method: "tasks/get", params: { taskId } })).json()) as {
          result: { status: string };
        }
      ).result.status;
    for (let i = 0; i < 400 && (await status()) !== "input_required"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const accept = { action: "accept", content: { approve: true } };
    // An answer to another input round (a late or replayed one) is dropped.
    const stale = await post({ id: `task-input:${taskId}:2:approve_request`, result: accept });
    expect(stale.status).toBe(202);
    // An answer for a task that does not exist (or is someone else's) says so.
    const foreign = await post({ id: "task-input:no-such-task:1:approve_request", result: accept });
    expect(foreign.status).toBe(404);
    expect(await status()).toBe("input_required");
    expect(await count(title)).toBe(0);
    // The answer to the current round moves the run on.
    expect(
      (await post({ id: `task-input:${taskId}:1:approve_request`, result: accept })).status,
    ).toBe(202);
    for (let i = 0; i < 400 && (await status()) !== "completed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await count(title)).toBe(1);
  });
});
