/**
 * openApiMcpServer approvals inside an McpAgent session: push elicitation on the tool call's
 * stream. Accept sends the request once; decline and cancel refuse it; nothing is sent.
 */
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { upstreamLog } from "./fixtures/api-agent";
import { connectClient, text } from "./helpers";

const program = `async () => {
  const pet = await codemode.request({ method: "GET", path: "/pet/7" });
  const added = await codemode.request({ method: "POST", path: "/pet", body: { name: "doggie", photoUrls: [] } });
  return { read: pet.name, added: added.name };
}`;

async function run(answer: ElicitResult) {
  const connected = await connectClient("/api", { capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  connected.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(String(request.params.message));
    return answer;
  });
  upstreamLog.length = 0;
  const result = await connected.client.callTool({ name: "execute", arguments: { code: program } });
  await connected.client.close();
  return { result, asked };
}

describe("approvals in an agent (push elicitation)", () => {
  it("accept: asks once for the write, then sends it", async () => {
    const { result, asked } = await run({ action: "accept", content: { approve: true } });
    expect(JSON.parse(text(result))).toEqual({ read: "rex", added: "doggie" });
    expect(asked).toHaveLength(1);
    // The push prompt is the same as the MRTR one: exactly what is sent, body included.
    expect(asked[0]).toBe(
      [
        "Approve this API request?",
        "POST /pet",
        "Content-Type: application/json",
        "Body (text, 32 characters):",
        '{"name":"doggie","photoUrls":[]}',
      ].join("\n"),
    );
    expect(upstreamLog).toEqual(["GET /pet/7", "POST /pet"]);
  });

  it.each([
    ["decline", { action: "decline" }, "declined"],
    ["cancel", { action: "cancel" }, "cancelled"],
  ] as const)("%s: refuses the write, nothing is sent", async (_label, answer, word) => {
    const { result } = await run(answer as ElicitResult);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      `RequestRefusedError: The user ${word} POST /pet. Nothing was sent.`,
    );
    expect(upstreamLog).toEqual(["GET /pet/7"]);
  });
});
