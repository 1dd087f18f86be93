/**
 * The product serves MCP tasks with no set-up: `/mcp` of the deployed entry (wrangler.jsonc's
 * `MCP_TASKS` binding, class `McpTasks`) turns an `execute` into a task for a client that
 * declares the extension, and keeps answering synchronously for one that does not.
 */
import { describe, expect, it } from "vitest";
import { TASKS_EXTENSION_ID } from "../../../../src/index";
import { modernRequest, rpcBody } from "../../mcp/fixtures";
import { entry } from "../helpers";

const WITH_TASKS = { extensions: { [TASKS_EXTENSION_ID]: {} } };
const PROGRAM = `async () => { const r = await codemode.request({ method: "GET", path: "/projects", response: "full" }); return r.status; }`;

async function call(method: string, params: Record<string, unknown>, capabilities = WITH_TASKS) {
  // SEP-2663 routing header: tasks/* carry the task id in Mcp-Name.
  const headers: Record<string, string> =
    typeof params.taskId === "string" ? { "mcp-name": params.taskId } : {};
  return rpcBody(await entry(modernRequest(method, params, { capabilities, headers })));
}

describe("the product's task store", () => {
  it("runs execute as a task: created at once, completed with the program's result", async () => {
    const created = await call("tools/call", { name: "execute", arguments: { code: PROGRAM } });
    expect(created.result?.resultType, JSON.stringify(created)).toBe("task");
    const taskId = created.result.taskId as string;
    let task: any;
    for (let i = 0; i < 200; i++) {
      task = (await call("tasks/get", { taskId })).result;
      if (task.status !== "working") break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(task.status, JSON.stringify(task)).toBe("completed");
    expect(task.result.content[0].text).toBe("200");
  });

  it("answers synchronously when the client did not declare the extension", async () => {
    const answer = await call(
      "tools/call",
      { name: "execute", arguments: { code: PROGRAM } },
      {} as never,
    );
    expect(answer.result?.resultType).toBe("complete");
    expect(answer.result.content[0].text).toBe("200");
  });
});
