/**
 * The conformance fixture's plain content: the tools, resources and prompts the official
 * scenarios (both suites) call by name, with the result shapes they check.
 */
import {
  completable,
  fromJsonSchema,
  McpServer,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { textResult as text } from "../helpers/clients/tool-result";

/** A 1×1 PNG and a minimal WAV: the scenarios check block shapes and mime types only. */
export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the content tools (text, image, audio, resources, logging, progress, errors). */
export function registerContentTools(server: McpServer): void {
  server.registerTool("test_simple_text", { description: "Simple text" }, async () =>
    text("This is a simple text response for testing."),
  );
  server.registerTool("test_image_content", { description: "Image content" }, async () => ({
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  }));
  server.registerTool("test_audio_content", { description: "Audio content" }, async () => ({
    content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
  }));
  server.registerTool("test_embedded_resource", { description: "Embedded resource" }, async () => ({
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  }));
  server.registerTool(
    "test_multiple_content_types",
    { description: "Mixed content" },
    async () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  );
  server.registerTool(
    "test_tool_with_logging",
    { description: "Logs while running" },
    async (ctx) => {
      for (const data of [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
      ]) {
        await ctx.mcpReq.notify({
          method: "notifications/message",
          params: { level: "info", data },
        });
        await sleep(50);
      }
      return text("Tool with logging executed successfully");
    },
  );
  server.registerTool(
    "test_logging_tool",
    { description: "Logs only when asked to" },
    async (ctx) => {
      await ctx.mcpReq.log("info", "test_logging_tool ran");
      return text("Logging tool executed.");
    },
  );
  server.registerTool(
    "test_tool_with_progress",
    { description: "Reports progress" },
    async (ctx) => {
      const progressToken = ctx.mcpReq["_meta"]?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, progress, total: 100, message: `Step ${progress}` },
          });
        }
        if (progress < 100) await sleep(50);
      }
      return text(String(progressToken ?? "no token"));
    },
  );
  server.registerTool("test_error_handling", { description: "Always fails" }, async () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  server.registerTool(
    "test_reconnection",
    { description: "Probed by the SSE polling scenario" },
    async (ctx) => {
      // Sessions (the McpAgent lane) close the POST stream mid-call, so the client must resume
      // with Last-Event-ID to get the result; the stateless lane has no stream to close.
      ctx.http?.closeSSE?.();
      await new Promise((resolve) => setTimeout(resolve, 200));
      return text("Reconnection test completed.");
    },
  );
  // json-schema-2020-12 checks that 2020-12 keywords reach tools/list verbatim, so the
  // schema is given as JSON (fromJsonSchema), not derived from zod.
  server.registerTool(
    "json_schema_2020_12_tool",
    {
      description: "Tool with JSON Schema 2020-12 features",
      inputSchema: fromJsonSchema<Record<string, unknown>>({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: {
          address: {
            $anchor: "addressDef",
            type: "object",
            properties: { street: { type: "string" }, city: { type: "string" } },
          },
        },
        properties: {
          name: { type: "string" },
          address: { $ref: "#/$defs/address" },
          contactMethod: { type: "string", enum: ["phone", "email"] },
          phone: { type: "string" },
          email: { type: "string" },
        },
        allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
        if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
        // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's if/then/else, never awaited
        then: { required: ["phone"] },
        else: { required: ["email"] },
        additionalProperties: false,
      } as never),
    },
    async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );
}

/** Registers the resources (static text and binary, template, watched) and subscribe handlers. */
export function registerResources(server: McpServer): void {
  const plain = (uri: string, body: string) => ({
    contents: [{ uri, mimeType: "text/plain", text: body }],
  });
  server.registerResource(
    "static-text",
    "test://static-text",
    { mimeType: "text/plain" },
    async () => plain("test://static-text", "This is the content of the static text resource."),
  );
  server.registerResource(
    "static-binary",
    "test://static-binary",
    { mimeType: "image/png" },
    async () => ({
      contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: PNG }],
    }),
  );
  server.registerResource(
    "watched-resource",
    "test://watched-resource",
    { mimeType: "text/plain" },
    async () => plain("test://watched-resource", "Watched resource content"),
  );
  server.registerResource(
    "template",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { mimeType: "application/json" },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );
  // 2025-era subscriptions: a stateless server can acknowledge them, never push updates later.
  server.server.setRequestHandler("resources/subscribe", async () => ({}));
  server.server.setRequestHandler("resources/unsubscribe", async () => ({}));
}

/** Registers the prompts (simple, with arguments and completion, embedded resource, image). */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt("test_simple_prompt", { description: "No arguments" }, async () => ({
    messages: [
      { role: "user", content: { type: "text", text: "This is a simple prompt for testing." } },
    ],
  }));
  server.registerPrompt(
    "test_prompt_with_arguments",
    {
      description: "Two arguments",
      argsSchema: z.object({
        arg1: completable(z.string(), (value) =>
          ["testAlpha", "testBeta"].filter((v) => v.startsWith(value)),
        ),
        arg2: z.string(),
      }),
    },
    async ({ arg1, arg2 }) => ({
      messages: [
        {
          role: "user",
          content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    }),
  );
  server.registerPrompt(
    "test_prompt_with_embedded_resource",
    { description: "Embeds a resource", argsSchema: z.object({ resourceUri: z.string() }) },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: resourceUri,
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          },
        },
        {
          role: "user",
          content: { type: "text", text: "Please process the embedded resource above." },
        },
      ],
    }),
  );
  server.registerPrompt(
    "test_prompt_with_image",
    { description: "Includes an image" },
    async () => ({
      messages: [
        { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Please analyze the image above." } },
      ],
    }),
  );
}
