/**
 * Seed example examples/elicitation-form.ts: form-mode `this.server.server.elicitInput(…,
 * { relatedRequestId: extra.requestId })` inside a McpAgent tool. The client sees the seed's form
 * request on the tool call's stream; its answer reaches the tool.
 */
import { describe, expect, it } from "vitest";
import { FormElicitationMcp } from "./examples/elicitation-form";
import { text } from "./support/clients";
import { elicitingClient } from "./support/elicitation";

const worker = FormElicitationMcp.serve("/mcp", { binding: "FORM_MCP" });

describe("seed: form-mode elicitation", () => {
  it("accept: the amount reaches the tool", async () => {
    const { client, asked } = await elicitingClient(worker, { form: {} }, () => ({
      action: "accept",
      content: { amount: 7 },
    }));
    expect(text(await client.callTool({ name: "increase", arguments: {} }))).toBe(
      "Counter is now 7.",
    );
    expect(asked).toEqual([
      {
        mode: "form",
        message: "By how much do you want to increase the counter?",
        requestedSchema: {
          type: "object",
          properties: { amount: { type: "number", title: "Amount", minimum: 1, maximum: 100 } },
          required: ["amount"],
        },
      },
    ]);
    await client.close();
  });

  it.each(["decline", "cancel"] as const)("%s: the counter is unchanged", async (action) => {
    const { client } = await elicitingClient(worker, { form: {} }, () => ({ action }));
    expect(text(await client.callTool({ name: "increase", arguments: {} }))).toBe(
      "Counter unchanged.",
    );
    await client.close();
  });
});
