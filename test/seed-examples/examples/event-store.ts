// Seed example: "Stream resumability" (`DurableObjectEventStore` over Durable Object storage).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/agent-api/#stream-resumability
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/agent-api.mdx).
// Verbatim; only import paths changed ("agents/mcp" -> "code-mode-mcp/mcp"). The snippet runs
// inside a Durable Object (`this.ctx`); the class around it is scaffolding.
import { DurableObject } from "cloudflare:workers"; // scaffolding
import { DurableObjectEventStore } from "code-mode-mcp/mcp";

/** Scaffolding: a Durable Object that embeds a stateful transport's event store. */
export class EventStoreObject extends DurableObject {
  eventStore = this.#create();

  #create() {
    const eventStore = new DurableObjectEventStore(this.ctx.storage);
    return eventStore;
  }
}
