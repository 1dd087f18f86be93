// The examples' test Worker: example 4's Durable Object class must be exported by the main module.
export { MyMCP } from "./example-4";

export default {
  fetch: () => new Response("the library's examples are called by readme-examples.test.ts\n"),
} satisfies ExportedHandler;
