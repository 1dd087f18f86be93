// The examples' test Worker: Durable Object classes must be exported by the main module.
export { MyMCP } from "./stateful-agent";
export { McpTasks } from "./tasks-server";

export default {
  fetch: () => new Response("the docs' examples are called by examples.test.ts\n"),
} satisfies ExportedHandler;
