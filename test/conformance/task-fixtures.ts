/**
 * The conformance fixture's task tools (SEP-2663 scenarios `tasks-*`): `greet` (never a task),
 * `slow_compute`, `failing_job` (task required), `protocol_error_job`, `confirm_delete` and
 * `multi_input` (input rounds inside a task). They run as tasks through the handler's `tasks`
 * option; each is an ordinary tool, marked with `setTaskSupport`.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { inputRequired, inputResponse, setTaskSupport } from "../../src/index";

const text = (value: string) => ({
  content: [{ type: "text" as const, text: value }],
});
const confirmForm = {
  type: "object",
  properties: { confirm: { type: "boolean" } },
  required: ["confirm"],
} as never;

/** Sleeps `ms`, ending early when `signal` aborts (a cancelled task stops at once). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), {
      once: true,
    });
  });
}

/** Registers the task scenario tools. */
export function registerTaskTools(server: McpServer): void {
  server.registerTool(
    "greet",
    {
      description: "Says hello (never a task)",
      inputSchema: z.object({ name: z.string() }),
    },
    async ({ name }) => text(`Hello, ${name}!`),
  );
  setTaskSupport(
    server.registerTool(
      "slow_compute",
      {
        description: "Sleeps `seconds`, then answers",
        inputSchema: z.object({
          seconds: z.number(),
          label: z.string().optional(),
        }),
      },
      async ({ seconds, label }, ctx) => {
        await sleep(seconds * 1000, ctx.mcpReq.signal);
        return text(`computed ${label ?? ""} after ${seconds}s`);
      },
    ),
  );
  setTaskSupport(
    server.registerTool("failing_job", { description: "Fails after a second" }, async (ctx) => {
      await sleep(1000, ctx.mcpReq.signal);
      return { ...text("the job failed"), isError: true };
    }),
    "required",
  );
  setTaskSupport(
    server.registerTool(
      "protocol_error_job",
      { description: "Returns a malformed result: a protocol error" },
      // `content` must be an array: the SDK's result check turns this into a JSON-RPC error.
      async () => ({ content: 42 }) as never,
    ),
  );
  setTaskSupport(
    server.registerTool(
      "confirm_delete",
      {
        description: "Asks for confirmation",
        inputSchema: z.object({ filename: z.string() }),
      },
      async ({ filename }, ctx) => {
        const answer = inputResponse(ctx.mcpReq.inputResponses, "confirm");
        if (answer.kind !== "elicit") {
          return inputRequired({
            inputRequests: {
              confirm: inputRequired.elicit({
                message: `Delete ${filename}?`,
                requestedSchema: confirmForm,
              }),
            },
          });
        }
        return text(`${answer.action === "accept" ? "deleted" : "kept"} ${filename}`);
      },
    ),
  );
  // MRTR, then escalate: round 1 asks for a name synchronously, the answered call is the task.
  setTaskSupport(
    server.registerTool(
      "test_tool_with_task",
      { description: "Asks a name, then works as a task" },
      async (ctx) => {
        const answer = inputResponse(ctx.mcpReq.inputResponses, "user_name");
        if (answer.kind !== "elicit") {
          return inputRequired({
            inputRequests: {
              user_name: inputRequired.elicit({
                message: "Your name?",
                requestedSchema: {
                  type: "object",
                  properties: { name: { type: "string" } },
                  required: ["name"],
                } as never,
              }),
            },
          });
        }
        await sleep(500, ctx.mcpReq.signal);
        return text(
          `Hello from the task, ${String((answer.content as { name?: unknown } | undefined)?.name)}!`,
        );
      },
    ),
    "required",
    { inputFirst: true },
  );
  setTaskSupport(
    server.registerTool(
      "multi_input",
      { description: "Asks two questions at once" },
      async (ctx) => {
        const first = inputResponse(ctx.mcpReq.inputResponses, "first");
        const second = inputResponse(ctx.mcpReq.inputResponses, "second");
        if (first.kind !== "elicit" || second.kind !== "elicit") {
          return inputRequired({
            inputRequests: {
              first: inputRequired.elicit({
                message: "First?",
                requestedSchema: confirmForm,
              }),
              second: inputRequired.elicit({
                message: "Second?",
                requestedSchema: confirmForm,
              }),
            },
          });
        }
        return text(`answers: ${first.action}, ${second.action}`);
      },
    ),
  );
}
