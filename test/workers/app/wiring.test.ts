// The product Worker end to end: /mcp and /mcp/code, protection and the status page.
import { describe, expect, it } from "vitest";
import { configured, entry } from "./helpers";
import { connect } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";

const KEY = "test-api-key-0123456789abcdef";

describe("/mcp: search and execute over the demo API", () => {
  it("lists the two tools and searches the demo spec", async () => {
    const client = await connect(entry);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).toSorted()).toEqual(["execute", "search"]);
    const result = await client.callTool({
      name: "search",
      arguments: {
        code: `async () => { const s = await codemode.spec(); return Object.entries(s.paths).flatMap(([p, ops]) => Object.values(ops).map((o) => o.operationId)).filter((id) => /task/i.test(id)).sort(); }`,
      },
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual([
      "createTask",
      "deleteTask",
      "getTask",
      "listTasks",
      "updateTask",
    ]);
    await client.close();
  });

  it("executes a program that creates a task and reads it back", async () => {
    const client = await connect(entry);
    const result = await client.callTool({
      name: "execute",
      arguments: {
        code: `async () => {
          const created = await codemode.request({ method: "POST", path: "/tasks", body: { projectId: 1, title: "From execute", priority: "high" }, response: "full" });
          const read = await codemode.request({ method: "GET", path: "/tasks/" + created.body.id });
          return { status: created.status, title: read.title, priority: read.priority };
        }`,
      },
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual({
      status: 201,
      title: "From execute",
      priority: "high",
    });
    await client.close();
  });

  it("refuses a request that does not match the spec before it reaches the API", async () => {
    const client = await connect(entry);
    const result = await client.callTool({
      name: "execute",
      arguments: {
        code: `async () => { try { await codemode.request({ method: "POST", path: "/tasks", body: { title: "no project" } }); return "sent"; } catch (e) { return e.name; } }`,
      },
    });
    expect(text(result)).toContain("RequestRefusedError");
    await client.close();
  });
});

describe("/mcp/code: one code tool over the demo upstream", () => {
  it("declares the demo tools with output types and runs a program", async () => {
    const client = await connect(entry, "/mcp/code");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["code"]);
    expect(tools[0]!.description).toContain("list_projects");
    const result = await client.callTool({
      name: "code",
      arguments: {
        code: `async () => {
          const ps = await codemode.list_projects({ status: "active" });
          const out = [];
          for (const p of ps.items) {
            const { items } = await codemode.list_tasks({ projectId: p.id, status: "blocked" });
            out.push(...items.map((t) => p.name + ": " + t.title));
          }
          return out.sort();
        }`,
      },
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(
      expect.arrayContaining([
        "Mobile app: Push notification certificates",
        "Website relaunch: Legal review of the privacy page",
      ]),
    );
    await client.close();
  });

  it("sees writes made through /mcp (same data)", async () => {
    const client = await connect(entry, "/mcp/code");
    const result = await client.callTool({
      name: "code",
      arguments: {
        code: `async () => { const t = await codemode.create_task({ projectId: 2, title: "Via code" }); const back = await codemode.get_task({ id: t.id }); return back.title; }`,
      },
    });
    expect(text(result)).toBe("Via code");
    await client.close();
  });
});

describe("protection", () => {
  it("answers 401 without or with a wrong API key, and serves the right one", async () => {
    const worker = configured({ MCP_API_KEY: KEY });
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: "Bearer wrong-key-wrong-key-wrong" },
      { authorization: KEY },
    ]) {
      const response = await worker("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
      expect(await response.text()).not.toContain("wrong-key");
    }
    expect((await worker("http://localhost/demo-api/projects")).status).toBe(401);
    expect((await worker("http://localhost/mcp/code", { method: "POST" })).status).toBe(401);
    const client = await connect(worker, "/mcp", { headers: { authorization: `Bearer ${KEY}` } });
    expect((await client.listTools()).tools).toHaveLength(2);
    await client.close();
    expect((await worker("http://localhost/health")).status).toBe(200);
  });

  it("serves nothing but problems when the configuration is invalid", async () => {
    const worker = configured({ SPEC: "nope", LIMIT_TIMEOUT_MS: "-1" });
    const health = await worker("http://localhost/health");
    expect(health.status).toBe(503);
    const { error } = (await health.json()) as { error: Record<string, string> };
    expect(error.code).toBe("misconfigured");
    expect(error.message).toMatch(/SPEC: .* LIMIT_TIMEOUT_MS: /);
    expect(error.fix).toMatch(/SPEC: .* LIMIT_TIMEOUT_MS: /);
    const status = (await (await worker("http://localhost/api/status")).json()) as {
      problems: { setting: string }[];
    };
    expect(status.problems.map((p) => p.setting)).toEqual(["SPEC", "LIMIT_TIMEOUT_MS"]);
    expect((await worker("http://localhost/mcp", { method: "POST" })).status).toBe(503);
    const page = await (await worker("http://localhost/")).text();
    expect(page).toContain("SPEC");
    expect(page).toContain("Fix:");
  });
});

describe("status page", () => {
  it("shows the spec's counts, tools with token counts, upstream and limits", async () => {
    const response = await entry("http://localhost/");
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toMatch(/<td id="spec-operations">13<\/td>/);
    expect(html).toContain("demo-api");
    expect(html).toMatch(/<code>search<\/code><\/td><td>\d+<\/td><td>\d+<\/td>/);
    expect(html).toMatch(/<code>code<\/code><\/td>/);
    expect(html).toContain('data-route="/mcp" data-count="o200k"');
    expect(html).toContain('data-route="/mcp/code" data-count="o200k"');
    expect(html).toContain("<code>create_task</code>");
    expect(html).toMatch(/<th>timeoutMs<\/th><td>30,000<\/td>/);
    expect(html).toContain('id="search-form"');
  });

  it("runs the search form's program through /api/search", async () => {
    const response = await entry("http://localhost/api/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: "async () => (await codemode.spec()).info.title" }),
    });
    expect(await response.json()).toEqual({ text: "Demo projects API", isError: false });
    const bad = await entry("http://localhost/api/search", { method: "POST", body: "{}" });
    expect(bad.status).toBe(400);
  });

  it("reports the same data as JSON at /api/status", async () => {
    const report = (await (await entry("http://localhost/api/status")).json()) as {
      spec: { operations: number; bytes: number };
      endpoints: { route: string; totalTokens: number }[];
    };
    expect(report.spec.operations).toBe(13);
    expect(report.spec.bytes).toBeGreaterThan(5_000);
    expect(report.endpoints.map((e) => e.route)).toEqual(["/mcp", "/mcp/code"]);
    expect(report.endpoints.every((e) => e.totalTokens > 50)).toBe(true);
  });
});
