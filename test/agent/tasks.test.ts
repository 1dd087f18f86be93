/**
 * 2025-11-25 tasks in an `McpAgent` session: SDK v1's experimental task tools with the task
 * state in the session's Durable Object (`SqlTaskStore`), driven by a real SDK v1 client that
 * disconnects and comes back to the same session.
 */
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectClient, text } from "./helpers";

describe("McpAgent tasks (2025-11-25, SqlTaskStore)", () => {
  it("a task created in one connection is polled and its result read from another", async () => {
    const first = await connectClient("/tasks", { capabilities: { tasks: {} } as never });
    // The client learns from tools/list that slow_echo runs as a task (execution.taskSupport).
    await first.client.listTools();
    let taskId: string | undefined;
    for await (const message of first.client.experimental.tasks.callToolStream({
      name: "slow_echo",
      arguments: { text: "later", ms: 300 },
    })) {
      if (message.type === "taskCreated") {
        taskId = message.task.taskId;
        break; // the client leaves as soon as it has the task
      }
    }
    expect(taskId).toBeDefined();
    const sessionId = first.transport.sessionId!;
    await first.transport.close();

    const second = await connectClient("/tasks", { sessionId });
    let status = "working";
    for (let i = 0; i < 200 && status === "working"; i++) {
      status = (await second.client.experimental.tasks.getTask(taskId!)).status;
      if (status === "working") await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(status).toBe("completed");
    const result = await second.client.experimental.tasks.getTaskResult(
      taskId!,
      CallToolResultSchema,
    );
    expect(text(result)).toBe("later");
    const listed = await second.client.experimental.tasks.listTasks();
    expect(listed.tasks.map((task) => task.taskId)).toContain(taskId);
    await second.client.close();
  });

  it("an unknown task id is an error naming it", async () => {
    const { client } = await connectClient("/tasks", { capabilities: { tasks: {} } as never });
    await expect(client.experimental.tasks.getTask("no-such-task")).rejects.toThrow(/-32602/);
    await client.close();
  });
});
