// Bindings of the seed-examples test Worker (test/seed-examples/wrangler.jsonc), merged into
// Cloudflare.Env. `Env` is what `wrangler types` generates and what the docs' examples name.
interface Env extends Cloudflare.Env {}

declare namespace Cloudflare {
  interface Env {
    MCP_OBJECT: DurableObjectNamespace<import("./examples/mcp-agent-square").MyMCP>;
    ADD_MCP: DurableObjectNamespace<import("./examples/mcp-agent-add").MyMCP>;
    COUNTER_MCP: DurableObjectNamespace<import("./examples/mcp-agent-counter").MyMCP>;
    COUNTER_UPDATE_MCP: DurableObjectNamespace<
      import("./examples/mcp-agent-counter-on-state-update").MyMCP
    >;
    FORM_MCP: DurableObjectNamespace<import("./examples/elicitation-form").FormElicitationMcp>;
    URL_MCP: DurableObjectNamespace<import("./examples/elicitation-url").UrlElicitationMcp>;
    SWITCH_MCP: DurableObjectNamespace<
      import("./examples/elicitation-switch").SwitchElicitationMcp
    >;
    CALCULATOR_MCP: DurableObjectNamespace<import("./examples/dual-transport").MyMCP>;
    TINY_MCP: DurableObjectNamespace<import("./examples/tiny-mcp").TinyMcp>;
    STORAGE_MCP: DurableObjectNamespace<import("./examples/storage-mcp").StorageMcp>;
    BUCKET: R2Bucket;
    SHARED_PASSWORD: string;
    EVENTS_OBJECT: DurableObjectNamespace<import("./examples/event-store").EventStoreObject>;
    OAUTH_KV: KVNamespace;
  }
}
