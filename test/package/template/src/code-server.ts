// codeMcpServer over a local MCP server: one `code` tool whose programs call its tools.
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { codeMcpServer, WorkerLoaderExecutor } from "code-mode-mcp/codemode";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { z } from "zod";

const weather = new McpServer({ name: "weather", version: "1.0.0" });
weather.registerTool(
  "get_forecast",
  {
    description: "Forecast for a city",
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ city: z.string(), celsius: z.number() }),
  },
  async ({ city }) => {
    const forecast = { city, celsius: city.length * 3 };
    return {
      content: [{ type: "text", text: JSON.stringify(forecast) }],
      structuredContent: forecast,
    };
  },
);

export const codeHandler = createMcpHandler(
  codeMcpServer({ upstream: weather, executor: new WorkerLoaderExecutor({ loader: env.LOADER }) }),
  { route: "/code" },
);
