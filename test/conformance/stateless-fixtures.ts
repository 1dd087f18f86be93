/**
 * The conformance fixture's `server-stateless` probes and SEP-2243 header tool: a tool that
 * needs an undeclared capability, elicitation by result (never by push), change triggers that
 * publish to open listen streams, and an `x-mcp-header` parameter.
 */
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { acceptedContent, inputRequired, inputResponse } from "../../src/index";
import { textResult as text } from "../helpers/clients/tool-result";

const form = (properties: Record<string, unknown>) =>
  ({ type: "object", properties, required: Object.keys(properties) }) as never;

/** Registers the server-stateless probe tools; `notify` is the handler's change publisher. */
export function registerStatelessProbes(
  server: McpServer,
  notify: { toolsChanged(): void; promptsChanged(): void },
): void {
  // server-stateless probes.
  server.registerTool("test_missing_capability", { description: "Needs sampling" }, async (ctx) => {
    if (inputResponse(ctx.mcpReq.inputResponses, "sample").kind === "sampling")
      return text("Sampled.");
    return inputRequired({
      inputRequests: {
        sample: inputRequired.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Ping." } }],
          maxTokens: 10,
        }),
      },
    });
  });
  server.registerTool(
    "test_streaming_elicitation",
    { description: "Elicits by result, never by push" },
    async (ctx) => {
      if (acceptedContent(ctx.mcpReq.inputResponses, "answer") !== undefined)
        return text("Answered.");
      return inputRequired({
        inputRequests: {
          answer: inputRequired.elicit({
            message: "Answer?",
            requestedSchema: form({ answer: { type: "string" } }),
          }),
        },
      });
    },
  );
  server.registerTool(
    "test_trigger_tool_change",
    { description: "Publishes tools/list_changed" },
    async () => {
      notify.toolsChanged();
      return text("Tool list change published.");
    },
  );
  server.registerTool(
    "test_trigger_prompt_change",
    { description: "Publishes prompts/list_changed" },
    async () => {
      notify.promptsChanged();
      return text("Prompt list change published.");
    },
  );
  server.registerTool(
    "test_custom_header_tool",
    {
      description: "Declares an x-mcp-header parameter",
      inputSchema: fromJsonSchema<{ message: string }>({
        type: "object",
        properties: { message: { type: "string", "x-mcp-header": "Message" } },
        required: ["message"],
      } as never),
    },
    async ({ message }) => text(`Message: ${message}`),
  );
}
