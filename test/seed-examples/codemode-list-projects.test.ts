/**
 * Seed example examples/codemode-list-projects.ts: the model's `code` program, verbatim, sent by
 * real SDK v2 and v1 clients to codeMcpServer wrapping a local upstream MCP server
 * (list_projects, list_tasks). One outer tool call; inside the sandbox the program iterates the
 * projects, calls list_tasks for each and returns only the blocked tasks of active projects.
 */
import { env } from "cloudflare:workers";
import { codeMcpServer, WorkerLoaderExecutor } from "code-mode-mcp/codemode";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { describe, expect, it } from "vitest";
import { program } from "./examples/codemode-list-projects";
import { connectV1, connectV2, text, viaWorker } from "./support/clients";
import { projectsUpstream, TASKS } from "./support/projects-upstream";

const handler = createMcpHandler(
  codeMcpServer({
    upstream: projectsUpstream,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } }),
  }),
);
const blocked = TASKS.filter((t) => ["t1", "t4"].includes(t.id));

describe("seed: the code program over list_projects and list_tasks", () => {
  it("the code tool declares both upstream tools", async () => {
    const client = await connectV2("http://localhost/mcp", viaWorker(handler));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["code"]);
    expect(tools[0]!.description).toContain("list_projects");
    expect(tools[0]!.description).toContain("list_tasks");
    await client.close();
  });

  it("runs verbatim for an SDK v2 client", async () => {
    const client = await connectV2("http://localhost/mcp", viaWorker(handler));
    const result = await client.callTool({ name: "code", arguments: { code: program } });
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(blocked);
    await client.close();
  });

  it("runs verbatim for an SDK v1 client", async () => {
    const { client } = await connectV1("http://localhost/mcp", viaWorker(handler));
    const result = await client.callTool({ name: "code", arguments: { code: program } });
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(blocked);
    await client.close();
  });
});
