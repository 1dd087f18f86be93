// The programs every client runs against the demo (one place, so each client is held to the same).

/** `search`: the demo spec's task operations. */
export const SEARCH = `async () => {
  const spec = await codemode.spec();
  return Object.entries(spec.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => method.toUpperCase() + " " + path + " " + op.operationId)).filter((line) => line.includes("/tasks"));
}`;

/**
 * `execute`: creates a task, then reads it back.
 * @param {string} title
 */
export const EXECUTE = (title) => `async () => {
  const created = await codemode.request({ method: "POST", path: "/tasks", body: { projectId: 1, title: ${JSON.stringify(title)}, priority: "high" } });
  const read = await codemode.request({ method: "GET", path: "/tasks/" + created.id });
  return { id: read.id, title: read.title, status: read.status };
}`;

/** `code`: blocked tasks of active projects (the contract's example) over the demo upstream. */
export const CODE = `async () => {
  const projects = await codemode.list_projects({ status: "active" });
  const blocked = [];
  for (const p of projects.items) {
    const { items } = await codemode.list_tasks({ projectId: p.id, status: "blocked" });
    blocked.push(...items.map((t) => p.name + ": " + t.title));
  }
  return blocked.sort();
}`;

/**
 * The first text block of a tool result.
 * @param {any} result
 * @returns {string}
 */
export function text(result) {
  return result?.content?.[0]?.text ?? "";
}
