/**
 * Another caller's task (#29): on the product's `/mcp` 2025-11-25 tasks lane, a second caller
 * who learns a task id can neither read, wait for nor cancel the first caller's task. Under OAuth
 * the task belongs to the signed-in user (not the client registration, which many users share); with an API key every holder of the key is one
 * caller (docs/runs.md), so someone without the key is refused before any task method runs.
 * And an approval answered through the lane sends its request once, however often the accepted
 * answer is replayed (concurrently and after the run ended).
 */
import { describe, expect, it } from "vitest";
import { accessToken, registerClient } from "../../../helpers/clients/oauth-client";
import { rpcBody } from "../../mcp/fixtures";
import { configured, createTask, poster, type Poster } from "../helpers";

const base = "http://localhost";
const SLOW = `async () => { for (let i = 0; i < 40; i++) await codemode.request({ method: "GET", path: "/projects" }); return "done"; }`;

/** Starts the slow program as a task: its id. */
const startTask = async (post: Poster) => (await createTask(post, SLOW)).taskId;

/** What a task method answers: the JSON-RPC error message, or "ok". */
async function attempt(post: Poster, method: string, taskId: string) {
  const response = await post({ id: 9, method, params: { taskId } });
  if (response.status === 401) return "401";
  const body = (await rpcBody(response)) as { error?: { message: string } };
  return body.error ? `error: ${body.error.message}` : "ok";
}

describe("OAuth (OAUTH=on): a task is its creator's", () => {
  const PASSWORD = "correct horse battery staple";
  const worker = configured({ OAUTH: "on", OAUTH_PASSWORD: PASSWORD });

  const register = () => registerClient(worker);
  const tokenFor = (user: string, clientId: string) =>
    accessToken(worker, user, clientId, PASSWORD);

  it("another user (another client) cannot read, wait for or cancel it", async () => {
    const ana = poster(worker, await tokenFor("ana", await register()));
    const bob = poster(worker, await tokenFor("bob", await register()));
    const taskId = await startTask(ana);
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"])
      expect(await attempt(bob, method, taskId)).toMatch(/^error: /);
    expect(await attempt(ana, "tasks/get", taskId)).toBe("ok");
  });

  // One client registration (a desktop app, a shared connector) serves many users: the task is
  // the user's, not the client's (#29: it was the client id's, so bob read ana's task).
  it("another user of the same client registration cannot read, wait for or cancel it", async () => {
    const client = await register();
    const ana = poster(worker, await tokenFor("ana", client));
    const bob = poster(worker, await tokenFor("bob", client));
    const taskId = await startTask(ana);
    expect(await attempt(ana, "tasks/get", taskId)).toBe("ok");
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"])
      expect(await attempt(bob, method, taskId)).toMatch(/^error: /);
    expect(await attempt(ana, "tasks/get", taskId)).toBe("ok");
  });

  it("the same user through a second token of the same client still owns it", async () => {
    const client = await register();
    const taskId = await startTask(poster(worker, await tokenFor("ana", client)));
    const again = poster(worker, await tokenFor("ana", client));
    expect(await attempt(again, "tasks/get", taskId)).toBe("ok");
  });
});

describe("API key (MCP_API_KEY): every task method needs the key", () => {
  const KEY = "task-owner-api-key-0123456789";
  const worker = configured({ MCP_API_KEY: KEY });

  it("someone without the key cannot read, wait for or cancel a task", async () => {
    const taskId = await startTask(poster(worker, KEY));
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      expect(await attempt(poster(worker), method, taskId)).toBe("401");
      expect(await attempt(poster(worker, `${KEY}-wrong`), method, taskId)).toBe("401");
    }
    expect(await attempt(poster(worker, KEY), "tasks/get", taskId)).toBe("ok");
  });
});

describe("an approval answered through the 2025 tasks lane", () => {
  const STATE_KEY = "task-owner-request-state-key-0123456789abcdef";
  const worker = configured({ APPROVALS: "on", REQUEST_STATE_KEY: STATE_KEY });

  it("sends once, however often the accepted answer is replayed", async () => {
    const title = `Replayed ${crypto.randomUUID().slice(0, 8)}`;
    const post = poster(worker);
    const { taskId } = await createTask(
      post,
      `async () => { await codemode.request({ method: "POST", path: "/tasks", body: { projectId: 3, title: ${JSON.stringify(title)} } }); return "wrote"; }`,
    );
    const status = async () =>
      (
        (await (await post({ id: 2, method: "tasks/get", params: { taskId } })).json()) as {
          result: { status: string };
        }
      ).result.status;
    for (let i = 0; i < 400 && (await status()) !== "input_required"; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const accept = {
      id: `task-input:${taskId}:1:approve_request`,
      result: { action: "accept", content: { approve: true } },
    };
    await Promise.all([post(accept), post(accept), post(accept)]);
    for (let i = 0; i < 400 && (await status()) !== "completed"; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    await post(accept);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const found = (await (
      await worker(`${base}/demo-api/tasks?q=${encodeURIComponent(title)}`)
    ).json()) as { total: number };
    expect(found.total).toBe(1);
  });
});
