/**
 * Seed example examples/elicitation-switch.ts: the `switch (result.action)` that handles accept,
 * decline and cancel. Each answer takes its own branch.
 */
import { describe, expect, it } from "vitest";
import { SwitchElicitationMcp } from "./examples/elicitation-switch";
import { text } from "./support/clients";
import { elicitingClient } from "./support/elicitation";

const worker = SwitchElicitationMcp.serve("/mcp", { binding: "SWITCH_MCP" });

describe("seed: handling elicitation responses", () => {
  it.each([
    { action: "accept" as const, content: { amount: 2 }, expected: 'Accepted {"amount":2}.' },
    { action: "decline" as const, expected: "Request declined." },
    { action: "cancel" as const, expected: "Request dismissed." },
  ])("$action", async ({ action, content, expected }) => {
    const { client } = await elicitingClient(worker, { form: {} }, () =>
      content === undefined ? { action } : { action, content },
    );
    expect(text(await client.callTool({ name: "ask", arguments: {} }))).toBe(expected);
    await client.close();
  });
});
