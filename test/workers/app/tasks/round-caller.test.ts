/**
 * The product's task object runs each round as the caller that created the task
 * (src/app/app-task-store.ts, `asCaller`): the caller the round's runs are placed for (what the
 * runner loader reads, placement-caller.ts `currentCaller`) is the task's `countedAs`, else its
 * owner, though the round runs in the Durable Object with no request of that caller's. Run as
 * nobody, a process's tasks went past the per-caller runner cap (attack28). In the real product
 * task object (wrangler.jsonc's `MCP_TASKS`), with a handler of this file's whose tools say whom
 * their round is placed for.
 */
import { env } from "cloudflare:workers";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { currentCaller, runAsCaller } from "../../../../src/app/placement-caller";
import {
  acceptedContent,
  createMcpHandler,
  inputRequired,
  setTaskSupport,
} from "../../../../src/index";
import { connect, GO, text, untilAsked, untilEnded } from "../../mcp/task-clients";

/** What a tool answers: whom its round's runs are placed for. */
const placedFor = () => ({
  content: [{ type: "text" as const, text: `placed for "${currentCaller()}"` }],
});

// Module scope, as the product's endpoints are: the task object finds the handler by name in
// this isolate (AppTaskStore.resolveServer looks there first). `countAs: currentCaller`, as
// src/app/endpoints.ts wires it: the creating request's caller becomes the task's `countedAs`.
const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: "round-caller", version: "1.0.0" });
    setTaskSupport(
      server.registerTool("who", { description: "Says whom it is placed for" }, placedFor),
    );
    // Asks once, then says: a second round, started by the answer's request.
    const ask = server.registerTool("ask", { description: "Asks, then says" }, (ctx) =>
      acceptedContent(ctx.mcpReq.inputResponses, "go") !== undefined
        ? placedFor()
        : inputRequired({
            inputRequests: {
              go: inputRequired.elicit({
                message: "Go?",
                requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
              }),
            },
          }),
    );
    setTaskSupport(ask);
    return server;
  },
  {
    tasks: {
      namespace: () => env.MCP_TASKS,
      name: "app-round-caller-test",
      pollIntervalMs: 50,
      countAs: currentCaller,
    },
  },
);

type Session = Awaited<ReturnType<typeof connect>>["session"];
type Task = ReturnType<Session["task"]>;

/** Starts `tool` as a task, its request served as `caller` (as the app serves each request). */
async function start(session: Session, tool: string, caller: string) {
  return runAsCaller(caller, async () => {
    const execution = await session.callTool(tool, {});
    expect(execution.kind).toBe("task");
    await execution.detach();
    return session.task(execution.handle!.taskId);
  });
}

/** What the finished task's tool answered (the task must have completed). */
async function outcome(task: Task) {
  expect((await untilEnded(task)).status).toBe("completed");
  return text(((await task.result()) as { result: unknown }).result);
}

describe("the product's task object runs each round as the task's caller", () => {
  it("as the caller that created it (`countedAs`), not its owner", async () => {
    const one = await connect(handler, { clientId: "ana" });
    const task = await start(one.session, "who", "local:process:505");
    // Before (no override): placed for "" (nobody, never capped); the owner would be "client:ana".
    expect(await outcome(task)).toBe('placed for "local:process:505"');
    await one.close();
  });

  it("as its owner when the request named no caller of its own", async () => {
    const one = await connect(handler, { clientId: "ana" });
    const task = await start(one.session, "who", "");
    expect(await outcome(task)).toBe('placed for "client:ana"');
    await one.close();
  });

  it("a round resumed by an answer runs as the creator, not the answer's caller", async () => {
    const one = await connect(handler, { person: "away", clientId: "ana" });
    const task = await start(one.session, "ask", "local:process:303");
    await untilAsked(task);
    await runAsCaller("local:process:404", () => task.update(GO));
    expect(await outcome(task)).toBe('placed for "local:process:303"');
    await one.close();
  });
});
