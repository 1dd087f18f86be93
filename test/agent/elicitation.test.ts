// Push elicitation from McpAgent tools (form and URL mode, client errors, SDK v2 ctx.mcpReq.elicitInput).
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  McpError,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectClient, text } from "./helpers";

type Answer = (request: {
  params: Record<string, unknown>;
}) => ElicitResult | Promise<ElicitResult>;

async function elicitClient(elicitation: Record<string, unknown>, answer: Answer) {
  const connected = await connectClient("/elicit", { capabilities: { elicitation } });
  const asked: Record<string, unknown>[] = [];
  connected.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return answer(request as never);
  });
  return { ...connected, asked };
}

describe("push elicitation (form mode)", () => {
  it("accept: the answer reaches the tool, which updates state", async () => {
    const { client, asked } = await elicitClient({ form: {} }, () => ({
      action: "accept",
      content: { amount: 3, unit: "boxes" },
    }));
    const result = await client.callTool({
      name: "increase-counter",
      arguments: { confirm: true },
    });
    expect(text(result)).toBe("Counter increased by 3, now 3");
    expect(asked[0]).toMatchObject({
      mode: "form",
      message: "By how much do you want to increase the counter?",
      requestedSchema: { required: ["amount"] },
    });
    await client.close();
  });

  it("decline and cancel end the tool without a change", async () => {
    for (const action of ["decline", "cancel"] as const) {
      const { client } = await elicitClient({ form: {} }, () => ({ action }));
      const result = await client.callTool({
        name: "increase-counter",
        arguments: { confirm: true },
      });
      expect(text(result)).toBe(`Counter increase ${action}ed.`);
      await client.close();
    }
  });

  it("an empty elicitation capability counts as form mode", async () => {
    const { client } = await elicitClient({}, () => ({ action: "accept", content: { amount: 1 } }));
    const result = await client.callTool({
      name: "increase-counter",
      arguments: { confirm: true },
    });
    expect(text(result)).toBe("Counter increased by 1, now 1");
    await client.close();
  });

  it("is refused with a clear tool result when the client declared no elicitation", async () => {
    const { client } = await connectClient("/elicit");
    const result = await client.callTool({
      name: "increase-counter",
      arguments: { confirm: true },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("did not declare form-mode elicitation");
    await client.close();
  });

  it("times out with a clear tool result", async () => {
    const { client } = await elicitClient({ form: {} }, () => new Promise<never>(() => {}));
    const result = await client.callTool({ name: "ask-slowly", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("did not answer");
    expect(text(result)).toContain("nothing was changed");
    await client.close();
  });
});

describe("an elicitation the client answers with a JSON-RPC error", () => {
  const refuse = () => {
    throw new McpError(-32050, "the user closed the dialog");
  };

  it("resolves as cancel, so the tool changes nothing (as in agents)", async () => {
    const { client, asked } = await elicitClient({ form: {} }, refuse);
    const result = await client.callTool({
      name: "increase-counter",
      arguments: { confirm: true },
    });
    expect(asked).toHaveLength(1);
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe("Counter increase canceled.");
    await client.close();
  });

  it("the cancel carries the client's message and code in content", async () => {
    const { client } = await elicitClient({ form: {} }, refuse);
    const result = await client.callTool({ name: "ask-raw", arguments: {} });
    expect(JSON.parse(text(result))).toEqual({
      action: "cancel",
      content: { error: "the user closed the dialog", code: -32050 },
    });
    await client.close();
  });
});

describe("push elicitation (URL mode)", () => {
  it("accept: the client gets the URL and a completion notification with the same id", async () => {
    const { client, asked } = await elicitClient({ url: {} }, () => ({ action: "accept" }));
    const completed: string[] = [];
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
      completed.push(notification.params.elicitationId);
    });
    const result = await client.callTool({ name: "connect-account", arguments: {} });
    const elicitationId = String(asked[0]!.elicitationId);
    expect(asked[0]).toMatchObject({
      mode: "url",
      url: expect.stringMatching(/^https:\/\/example\.com\//),
    });
    expect(text(result)).toBe(`authorization accept: ${elicitationId}`);
    expect(completed).toEqual([elicitationId]);
    await client.close();
  });

  it("decline and cancel are reported to the tool", async () => {
    for (const action of ["decline", "cancel"] as const) {
      const { client } = await elicitClient({ url: {} }, () => ({ action }));
      const result = await client.callTool({ name: "connect-account", arguments: {} });
      expect(text(result)).toMatch(new RegExp(`^authorization ${action}: `));
      await client.close();
    }
  });

  it("is refused when the client declared only form mode", async () => {
    const { client, asked } = await elicitClient({ form: {} }, () => ({ action: "accept" }));
    const result = await client.callTool({ name: "connect-account", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("did not declare url-mode elicitation");
    expect(asked).toEqual([]);
    await client.close();
  });

  it("refuses a request without an elicitationId or with a non-http(s) url, sending nothing", async () => {
    const { client, asked } = await elicitClient({ url: {} }, () => ({ action: "accept" }));
    const noId = await client.callTool({ name: "ask-badly", arguments: { kind: "no-id" } });
    expect(noId.isError).toBe(true);
    expect(text(noId)).toContain("URL-mode elicitation needs an elicitationId");
    const ftp = await client.callTool({ name: "ask-badly", arguments: { kind: "ftp" } });
    expect(ftp.isError).toBe(true);
    expect(text(ftp)).toContain("URL-mode elicitation needs an http(s) url");
    expect(asked).toEqual([]);
    await client.close();
  });
});

describe("SDK v2 tools asking through ctx.mcpReq.elicitInput", () => {
  it("the question reaches the client on the tool call's stream and the answer comes back", async () => {
    const connected = await connectClient("/v2", { capabilities: { elicitation: { form: {} } } });
    connected.client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: "accept",
      content: { name: "Ada" },
    }));
    const result = await connected.client.callTool({ name: "ask", arguments: {} });
    expect(text(result)).toBe("hello Ada");
    await connected.client.close();
  });
});
