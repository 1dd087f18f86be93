/**
 * The "everything" fixture every conformance lane serves: one server with the capabilities the
 * scenarios negotiate, its content tools, resources and prompts, and the input-round tools.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { registerContentTools, registerPrompts, registerResources } from "./content-fixtures";
import { registerInputTools } from "./input-fixtures";

/** The capabilities the fixture declares (the same in every lane). */
const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

/** A fresh, empty server of the fixture: name it after its lane. */
export function fixtureServer(name: string): McpServer {
  return new McpServer({ name, version: "1.0.0" }, { capabilities: CAPABILITIES });
}

/**
 * Registers what every lane serves on `server`: content tools, resources, prompts, input tools.
 * @param server - a {@link fixtureServer}
 * @param codec - the request-state codec of the input rounds
 */
export function registerEverything(
  server: McpServer,
  codec: Parameters<typeof registerInputTools>[1]["codec"],
): McpServer {
  registerContentTools(server);
  registerResources(server);
  registerPrompts(server);
  registerInputTools(server, { codec });
  return server;
}
