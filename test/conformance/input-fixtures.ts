/**
 * The conformance fixture's tools that ask the client for input. All are written once in the
 * 2026-07-28 style (`inputRequired(...)` + `acceptedContent(...)`): 2026 clients answer them;
 * on the stateless 2025 lane they cannot be answered (no server-to-client requests), which the
 * expected-failures file records.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequest,
  McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import {
  acceptedContent,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
} from "../../src/index";
import { textResult as text } from "../helpers/clients/tool-result";

const form = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) =>
  ({ type: "object", properties, required }) as never;

/** What the input tools need from the hosting handler. */
export interface InputFixtureDeps {
  /** The handler's sealing codec (mint with the handler context). */
  codec: RequestStateCodec;
}

/** Registers every tool and prompt that returns `input_required`. */
export function registerInputTools(server: McpServer, deps: InputFixtureDeps): void {
  const seal = (payload: unknown, ctx: ServerContext) => deps.codec.mint(payload, ctx);

  // 2025-suite names (tools-call-elicitation, -sampling, elicitation-sep1034/1330).
  const elicitOnce = (name: string, key: string, message: string, schema: unknown) =>
    server.registerTool(
      name,
      {
        description: message,
        inputSchema: z.object({ message: z.string().optional(), prompt: z.string().optional() }),
      },
      async (args, ctx) => {
        const view = inputResponse(ctx.mcpReq.inputResponses, key);
        if (view.kind !== "elicit") {
          return inputRequired({
            inputRequests: {
              [key]: inputRequired.elicit({
                message: args.message ?? message,
                requestedSchema: schema as never,
              }),
            },
          });
        }
        return text(
          `User response: action=${view.action}, content=${JSON.stringify(view.content ?? {})}`,
        );
      },
    );
  elicitOnce(
    "test_elicitation",
    "response",
    "Please respond",
    form({ response: { type: "string", description: "User's response" } }),
  );
  elicitOnce(
    "test_elicitation_sep1034_defaults",
    "details",
    "Review the defaults",
    form(
      {
        name: { type: "string", default: "John Doe" },
        age: { type: "integer", default: 30 },
        score: { type: "number", default: 95.5 },
        status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
        verified: { type: "boolean", default: true },
      },
      [],
    ),
  );
  elicitOnce(
    "test_elicitation_sep1330_enums",
    "choices",
    "Pick options",
    form(
      {
        untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
        titledSingle: {
          type: "string",
          oneOf: [
            { const: "value1", title: "First Option" },
            { const: "value2", title: "Second Option" },
          ],
        },
        legacyEnum: {
          type: "string",
          enum: ["opt1", "opt2"],
          enumNames: ["Option One", "Option Two"],
        },
        untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2"] } },
        titledMulti: {
          type: "array",
          items: {
            anyOf: [
              { const: "value1", title: "First" },
              { const: "value2", title: "Second" },
            ],
          },
        },
      },
      [],
    ),
  );
  server.registerTool(
    "test_sampling",
    { description: "Asks the client's model", inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, "completion");
      if (view.kind !== "sampling") {
        return inputRequired({
          inputRequests: {
            completion: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: prompt } }],
              maxTokens: 100,
            }),
          },
        });
      }
      const blocks = ([] as unknown[]).concat(view.result.content);
      return text(
        `LLM response: ${blocks.map((block) => (block as { text?: string }).text ?? "").join("")}`,
      );
    },
  );

  // 2026-07-28 input-required-result-* scenarios.
  server.registerTool(
    "test_input_required_result_elicitation",
    { description: "Asks for a name" },
    async (ctx) => {
      const content = acceptedContent<{ name?: unknown }>(ctx.mcpReq.inputResponses, "user_name");
      if (typeof content?.name === "string") return text(`Hello, ${content.name}!`);
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({
            message: "What is your name?",
            requestedSchema: form({ name: { type: "string" } }),
          }),
        },
      });
    },
  );
  server.registerTool(
    "test_input_required_result_sampling",
    { description: "Asks the model" },
    async (ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, "sample_request");
      if (view.kind === "sampling") return text("Sampled.");
      return inputRequired({
        inputRequests: {
          sample_request: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
            maxTokens: 50,
          }),
        },
      });
    },
  );
  server.registerTool(
    "test_input_required_result_list_roots",
    { description: "Asks for roots" },
    async (ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, "roots_request");
      if (view.kind === "roots")
        return text(`Roots: ${view.roots.map((root) => root.uri).join(", ")}`);
      return inputRequired({ inputRequests: { roots_request: inputRequired.listRoots() } });
    },
  );
  const confirmTool = (name: string, done: string) =>
    server.registerTool(name, { description: "Confirms with sealed state" }, async (ctx) => {
      if (
        acceptedContent(ctx.mcpReq.inputResponses, "confirm") !== undefined &&
        ctx.mcpReq.requestState() !== undefined
      )
        return text(done);
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: "Proceed?",
            requestedSchema: form({ ok: { type: "boolean" } }),
          }),
        },
        requestState: await seal({ tool: name }, ctx),
      });
    });
  confirmTool(
    "test_input_required_result_request_state",
    "state-ok: the echoed request state verified.",
  );
  confirmTool(
    "test_input_required_result_tampered_state",
    "Request state verified; the call is complete.",
  );
  server.registerTool(
    "test_input_required_result_multiple_inputs",
    { description: "Three kinds at once" },
    async (ctx) => {
      if (ctx.mcpReq.inputResponses !== undefined && ctx.mcpReq.requestState() !== undefined)
        return text("Every input answered; the call is complete.");
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({
            message: "Name?",
            requestedSchema: form({ name: { type: "string" } }),
          }),
          greeting: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "Say hello." } }],
            maxTokens: 50,
          }),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await seal({ tool: "multiple" }, ctx),
      });
    },
  );
  server.registerTool(
    "test_input_required_result_multi_round",
    { description: "Two rounds" },
    async (ctx) => {
      const round = ctx.mcpReq.requestState<{ round?: number }>()?.round ?? 0;
      if (round >= 2) return text("Both rounds answered; the call is complete.");
      const key = round === 0 ? "step1" : "step2";
      return inputRequired({
        inputRequests: {
          [key]: inputRequired.elicit({
            message: `Step ${round + 1}`,
            requestedSchema: form({ name: { type: "string" } }),
          }),
        },
        requestState: await seal({ round: round + 1 }, ctx),
      });
    },
  );
  server.registerTool(
    "test_input_required_result_capabilities",
    { description: "Asks only for declared kinds" },
    async (ctx) => {
      if (ctx.mcpReq.inputResponses !== undefined)
        return text("Declared-capability input answered.");
      const envelope = (ctx.mcpReq.envelope ?? {}) as Record<
        string,
        Record<string, unknown> | undefined
      >;
      const declared = envelope[CLIENT_CAPABILITIES_META_KEY] ?? {};
      const requests: Record<string, InputRequest> = {};
      if (declared.elicitation !== undefined)
        requests.elicit_input = inputRequired.elicit({
          message: "Value?",
          requestedSchema: form({ value: { type: "string" } }),
        });
      if (declared.sampling !== undefined)
        requests.sample_input = inputRequired.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
          maxTokens: 10,
        });
      if (Object.keys(requests).length === 0)
        return text("The client declared no input capabilities.");
      return inputRequired({
        inputRequests: requests,
        requestState: await seal({ tool: "capabilities" }, ctx),
      });
    },
  );
  server.registerPrompt(
    "test_input_required_result_prompt",
    { description: "Asks for context first" },
    async (ctx) => {
      const content = acceptedContent<{ context?: unknown }>(
        ctx.mcpReq.inputResponses,
        "user_context",
      );
      if (typeof content?.context === "string")
        return {
          messages: [
            { role: "user", content: { type: "text", text: `Context: ${content.context}` } },
          ],
        };
      return inputRequired({
        inputRequests: {
          user_context: inputRequired.elicit({
            message: "Context?",
            requestedSchema: form({ context: { type: "string" } }),
          }),
        },
      });
    },
  );
}
