// The demo API (projects, tasks, comments) and its validation, over HTTP.
import { describe, expect, it } from "vitest";
import { entry, json } from "./helpers";

const api = (path: string, init?: RequestInit) => entry(`http://localhost/demo-api${path}`, init);

describe("demo API: projects", () => {
  it("lists the seeded projects, newest first, with task counts", async () => {
    const response = await api("/projects");
    expect(response.status).toBe(200);
    const page = (await response.json()) as {
      items: { id: number; name: string; taskCounts: Record<string, number> }[];
      total: number;
    };
    expect(page.total).toBeGreaterThanOrEqual(4);
    expect(page.items.map((p) => p.id)).toEqual(
      page.items.map((p) => p.id).toSorted((a, b) => b - a),
    );
    const website = page.items.find((p) => p.name === "Website relaunch")!;
    expect(website.taskCounts).toMatchObject({ blocked: 1, done: 1 });
  });

  it("creates, reads, updates and deletes a project", async () => {
    const created = await api(
      "/projects",
      json("POST", { name: "Test project", description: "x" }),
    );
    expect(created.status).toBe(201);
    const project = (await created.json()) as { id: number; status: string };
    expect(project.status).toBe("active");
    expect(await (await api(`/projects/${project.id}`)).json()).toMatchObject({
      name: "Test project",
    });
    const patched = await api(`/projects/${project.id}`, json("PATCH", { status: "paused" }));
    expect(await patched.json()).toMatchObject({ status: "paused", name: "Test project" });
    expect((await api(`/projects/${project.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/projects/${project.id}`)).status).toBe(404);
    expect((await api(`/projects/${project.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("filters by status and name", async () => {
    const archived = (await (await api("/projects?status=archived")).json()) as {
      items: { status: string }[];
    };
    expect(archived.items.length).toBeGreaterThan(0);
    expect(archived.items.every((p) => p.status === "archived")).toBe(true);
    const byName = (await (await api("/projects?q=MOBILE")).json()) as {
      items: { name: string }[];
    };
    expect(byName.items.map((p) => p.name)).toEqual(["Mobile app"]);
    const literal = (await (await api("/projects?q=%25")).json()) as { total: number };
    expect(literal.total).toBe(0);
  });
});

describe("demo API: tasks and comments", () => {
  it("paginates with limit and nextCursor without gaps or repeats", async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    let total = 0;
    do {
      const page = (await (
        await api(`/tasks?limit=3${cursor ? `&cursor=${cursor}` : ""}`)
      ).json()) as { items: { id: number }[]; nextCursor: string | null; total: number };
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((t) => t.id));
      cursor = page.nextCursor;
      total = page.total;
      pages++;
    } while (cursor && pages < 50);
    expect(seen.length).toBe(total);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(total / 3));
  });

  it("filters tasks by project, status, priority and assignee", async () => {
    const blocked = (await (await api("/tasks?status=blocked&priority=high")).json()) as {
      items: { status: string; priority: string }[];
    };
    expect(blocked.items.length).toBeGreaterThanOrEqual(2);
    expect(blocked.items.every((t) => t.status === "blocked" && t.priority === "high")).toBe(true);
    const ana = (await (await api("/tasks?assignee=ana&projectId=1")).json()) as {
      items: { assignee: string; projectId: number }[];
    };
    expect(ana.items.every((t) => t.assignee === "ana" && t.projectId === 1)).toBe(true);
  });

  it("creates a task, comments on it, updates and deletes it", async () => {
    const created = await api(
      "/tasks",
      json("POST", { projectId: 1, title: "Write tests", priority: "high", dueDate: "2026-12-31" }),
    );
    expect(created.status).toBe(201);
    const task = (await created.json()) as { id: number; status: string; assignee: null };
    expect(task).toMatchObject({ status: "todo", assignee: null, projectId: 1 });
    const comment = await api(
      `/tasks/${task.id}/comments`,
      json("POST", { author: "ana", body: "On it" }),
    );
    expect(comment.status).toBe(201);
    const comments = (await (await api(`/tasks/${task.id}/comments`)).json()) as {
      items: { body: string }[];
    };
    expect(comments.items.map((c) => c.body)).toEqual(["On it"]);
    const done = await api(`/tasks/${task.id}`, json("PATCH", { status: "done", assignee: "ben" }));
    expect(await done.json()).toMatchObject({
      status: "done",
      assignee: "ben",
      title: "Write tests",
    });
    expect((await api(`/tasks/${task.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/tasks/${task.id}/comments`)).status).toBe(404);
  });
});

describe("demo API: validation", () => {
  it.each([
    ["POST", "/projects", {}, "name"],
    ["POST", "/projects", { name: "x", color: "red" }, "color"],
    ["POST", "/projects", { name: "x", status: "closed" }, "status"],
    ["POST", "/tasks", { projectId: 1 }, "title"],
    ["POST", "/tasks", { projectId: 999999, title: "x" }, "projectId"],
    ["POST", "/tasks", { projectId: 1, title: "x", dueDate: "tomorrow" }, "dueDate"],
    ["PATCH", "/tasks/1", {}, undefined],
    ["POST", "/tasks/1/comments", { author: "a", body: "" }, "body"],
  ])("%s %s %j → 400 naming the field", async (method, path, body, field) => {
    const response = await api(path, json(method, body));
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as {
      error: { code: string; message: string; fix: string };
    };
    expect(Object.keys(error).toSorted()).toEqual(["code", "fix", "message"]);
    expect(error.code).toBe("invalid_request");
    // The message names the field, the fix says where its rule is written.
    if (field !== undefined) expect(error.message).toContain(`"${field}"`);
    expect(error.fix).toContain("specs/demo-api.yaml");
  });

  it("refuses bad query parameters, bad ids, bad JSON, unknown routes and methods", async () => {
    expect((await api("/tasks?status=stuck")).status).toBe(400);
    expect((await api("/tasks?limit=500")).status).toBe(400);
    expect((await api("/tasks/abc")).status).toBe(400);
    expect(
      (
        await api("/projects", {
          method: "POST",
          body: "{",
          headers: { "content-type": "application/json" },
        })
      ).status,
    ).toBe(400);
    expect((await api("/nothing")).status).toBe(404);
    const put = await api("/projects", { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST");
  });
});
