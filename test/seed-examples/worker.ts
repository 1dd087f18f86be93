/**
 * Test-only Worker of the seed examples: exports the examples' Durable Object classes under the
 * names test/seed-examples/wrangler.jsonc binds. Each test calls an example Worker's own `fetch`
 * (as its `export default` is written), so this Worker's fetch only answers 404.
 */
export { FormElicitationMcp } from "./examples/elicitation-form";
export { SwitchElicitationMcp } from "./examples/elicitation-switch";
export { UrlElicitationMcp } from "./examples/elicitation-url";
export { MyMCP as CalculatorMcp } from "./examples/dual-transport";
export { EventStoreObject } from "./examples/event-store";
export { MyMCP as AddMcp } from "./examples/mcp-agent-add";
export { MyMCP as CounterMcp } from "./examples/mcp-agent-counter";
export { MyMCP as CounterUpdateMcp } from "./examples/mcp-agent-counter-on-state-update";
export { MyMCP as SquareMcp } from "./examples/mcp-agent-square";
export { StorageMcp } from "./examples/storage-mcp";
export { TinyMcp } from "./examples/tiny-mcp";

export default {
  fetch() {
    return new Response("Not Found\n", { status: 404 });
  },
} satisfies ExportedHandler;
