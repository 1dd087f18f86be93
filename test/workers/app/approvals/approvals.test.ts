// The product Worker with APPROVALS=on, driven by real SDK v2 clients: a person is asked before a
// write is sent, once, and under OAuth only the user asked can answer.
import { describe, expect, it } from "vitest";
import { modernRequest, rpcBody } from "../../mcp/fixtures";
import { configured, createTask, entry, poster } from "../helpers";
import { approver } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";
import { accessToken, registerClient } from "../../../helpers/clients/oauth-client";

const STATE_KEY = "app-test-request-state-key-0123456789abcdef";

describe("approvals (APPROVALS=on)", () => {
  const program = (title: string) => `async () => {
    const r = await codemode.request({ method: "POST", path: "/tasks", body: { projectId: 3, title: ${JSON.stringify(title)} } });
    return r.title;
  }`;
  const count = async (title: string) =>
    (
      (await (
        await entry(`http://localhost/demo-api/tasks?q=${encodeURIComponent(title)}`)
      ).json()) as { total: number }
    ).total;

  it("asks before a write and sends it once when approved", async () => {
    const worker = configured({ APPROVALS: "on", REQUEST_STATE_KEY: STATE_KEY });
    const { client, asked } = await approver(worker, "accept");
    const result = await client.callTool({
      name: "execute",
      arguments: { code: program("Approved write") },
    });
    expect(text(result)).toBe("Approved write");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("POST /tasks");
    expect(await count("Approved write")).toBe(1);
  });

  it("refuses a replayed accepted round: the write happens once (Durable Object ledger)", async () => {
    const worker = configured({ APPROVALS: "on", REQUEST_STATE_KEY: STATE_KEY });
    const code = program("Replayed write");
    let id = 1;
    const round = async (extra: Record<string, unknown> = {}) =>
      rpcBody(
        await worker(
          modernRequest(
            "tools/call",
            { name: "execute", arguments: { code }, ...extra },
            { capabilities: { elicitation: { form: {} } }, id: id++ },
          ),
        ),
      );
    const first = await round();
    expect(first.result.resultType).toBe("input_required");
    expect(first.result.inputRequests.approve_request.params.message).toContain(
      'Body (text, 40 characters):\n{"projectId":3,"title":"Replayed write"}',
    );
    const accepted = {
      requestState: first.result.requestState,
      inputResponses: { approve_request: { action: "accept", content: { approve: true } } },
    };
    expect((await round(accepted)).result.content[0].text).toBe("Replayed write");
    const replay = await round(accepted);
    expect(replay.result.isError).toBe(true);
    expect(replay.result.content[0].text).toContain("this approval was already used");
    expect(await count("Replayed write")).toBe(1);
  });

  it("sends nothing when the user declines", async () => {
    const worker = configured({ APPROVALS: "on", REQUEST_STATE_KEY: STATE_KEY });
    const { client } = await approver(worker, "decline");
    const result = await client.callTool({
      name: "execute",
      arguments: { code: program("Declined write") },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/declined/);
    expect(await count("Declined write")).toBe(0);
  });
});

describe("approvals under OAuth (APPROVALS=on, OAUTH=on): only the user asked can answer", () => {
  // Two users of ONE client registration (a shared desktop app): the identity that separates
  // them is the user, not the client id (#29).
  const PASSWORD = "correct horse battery staple";
  const worker = configured({
    APPROVALS: "on",
    REQUEST_STATE_KEY: STATE_KEY,
    OAUTH: "on",
    OAUTH_PASSWORD: PASSWORD,
  });
  const write = (title: string) =>
    `async () => { await codemode.request({ method: "POST", path: "/tasks", body: { projectId: 3, title: ${JSON.stringify(title)} } }); return "wrote"; }`;
  const count = async (title: string, token: string) =>
    (
      (await (
        await worker(`http://localhost/demo-api/tasks?q=${encodeURIComponent(title)}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as { total: number }
    ).total;
  const users = async () => {
    const client = await registerClient(worker);
    return {
      ana: await accessToken(worker, "ana", client, PASSWORD),
      bob: await accessToken(worker, "bob", client, PASSWORD),
    };
  };

  it("2025 tasks lane: bob's accept of ana's question sends nothing; ana's own answer sends once", async () => {
    const { ana, bob } = await users();
    const title = `Ana only ${crypto.randomUUID().slice(0, 8)}`;
    const [asAna, asBob] = [poster(worker, ana), poster(worker, bob)];
    const { taskId } = await createTask(asAna, write(title));
    const status = async () =>
      (
        (await rpcBody(await asAna({ id: 2, method: "tasks/get", params: { taskId } }))) as {
          result: { status: string };
        }
      ).result.status;
    for (let i = 0; i < 400 && (await status()) !== "input_required"; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await status()).toBe("input_required");
    const accept = {
      id: `task-input:${taskId}:1:approve_request`,
      result: { action: "accept", content: { approve: true } },
    };
    const stolen = await asBob(accept);
    expect(stolen.status).not.toBe(202);
    expect(JSON.stringify(await rpcBody(stolen))).toContain("Unknown task");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await status()).toBe("input_required");
    expect(await count(title, ana)).toBe(0);
    expect((await asAna(accept)).status).toBe(202);
    for (let i = 0; i < 400 && (await status()) !== "completed"; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await status()).toBe("completed");
    expect(await count(title, ana)).toBe(1);
  });

  it("MRTR (2026-07-28): ana's sealed question answered by bob is refused and sends nothing", async () => {
    const { ana, bob } = await users();
    const title = `Ana sealed ${crypto.randomUUID().slice(0, 8)}`;
    const round = async (token: string, extra: Record<string, unknown> = {}) =>
      rpcBody(
        await worker(
          modernRequest(
            "tools/call",
            { name: "execute", arguments: { code: write(title) }, ...extra },
            {
              capabilities: { elicitation: { form: {} } },
              headers: { authorization: `Bearer ${token}` },
            },
          ),
        ),
      );
    const first = await round(ana);
    expect(first.result.resultType).toBe("input_required");
    const accepted = {
      requestState: first.result.requestState,
      inputResponses: { approve_request: { action: "accept", content: { approve: true } } },
    };
    const stolen = await round(bob, accepted);
    expect(stolen.error?.message).toMatch(/requestState/);
    expect(await count(title, ana)).toBe(0);
    expect((await round(ana, accepted)).result.content[0].text).toBe("wrote");
    expect(await count(title, ana)).toBe(1);
  });
});
