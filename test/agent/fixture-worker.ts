/**
 * Test-only Worker for the stateful layer: each agent class served on its own path.
 */
import { ApiAgent } from "./fixtures/api-agent";
import { AddAgent, CounterAgent } from "./fixtures/contract-agents";
import { DefaultAgent, FlakyStartAgent } from "./fixtures/default-agent";
import { ElicitAgent } from "./fixtures/elicit-agent";
import { isOAuthPath, oauthFront } from "./fixtures/oauth-front";
import { NotesAgent, SlowAgent, V2Agent } from "./fixtures/other-agents";
import { TasksAgent } from "./fixtures/tasks-agent";

export {
  AddAgent,
  ApiAgent,
  CounterAgent,
  DefaultAgent,
  ElicitAgent,
  FlakyStartAgent,
  NotesAgent,
  SlowAgent,
  TasksAgent,
  V2Agent,
};

const routes: Record<string, ExportedHandler<Cloudflare.Env>> = {
  "/mcp": AddAgent.serve("/mcp", { binding: "ADD_AGENT" }),
  "/counter": CounterAgent.serve("/counter", { binding: "COUNTER_AGENT" }),
  "/elicit": ElicitAgent.serve("/elicit", { binding: "ELICIT_AGENT" }),
  "/notes": NotesAgent.serve("/notes", { binding: "NOTES_AGENT" }),
  "/slow": SlowAgent.serve("/slow", { binding: "SLOW_AGENT" }),
  "/v2": V2Agent.serve("/v2", { binding: "V2_AGENT" }),
  "/api": ApiAgent.serve("/api", { binding: "API_AGENT" }),
  // No binding: the MCP_OBJECT default.
  "/default": DefaultAgent.serve("/default"),
  // HTTP+SSE (2024-11-05), also on the MCP_OBJECT default.
  "/sse": DefaultAgent.serveSSE("/sse"),
  "/sse/message": DefaultAgent.serveSSE("/sse"),
  "/v2-sse": V2Agent.serveSSE("/v2-sse", { binding: "V2_AGENT" }),
  "/v2-sse/message": V2Agent.serveSSE("/v2-sse", { binding: "V2_AGENT" }),
  // Fast keep-alives: a dropped client is noticed at the next write.
  "/sse-fast": DefaultAgent.serveSSE("/sse-fast", { keepAliveMs: 20 }),
  "/sse-fast/message": DefaultAgent.serveSSE("/sse-fast", { keepAliveMs: 20 }),
  // HTTP+SSE for the cancel tests' `hold` (test/agent/cancel/), with fast keep-alives: a
  // dropped client is noticed at the next write.
  "/slow-sse": SlowAgent.serveSSE("/slow-sse", { binding: "SLOW_AGENT", keepAliveMs: 20 }),
  "/slow-sse/message": SlowAgent.serveSSE("/slow-sse", { binding: "SLOW_AGENT", keepAliveMs: 20 }),
  "/v2-sse-fast": V2Agent.serveSSE("/v2-sse-fast", { binding: "V2_AGENT", keepAliveMs: 20 }),
  "/v2-sse-fast/message": V2Agent.serveSSE("/v2-sse-fast", {
    binding: "V2_AGENT",
    keepAliveMs: 20,
  }),
  "/flaky": FlakyStartAgent.serve("/flaky", { binding: "FLAKY_START_AGENT" }),
  "/tasks": TasksAgent.serve("/tasks", { binding: "TASKS_AGENT" }),
};

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (isOAuthPath(pathname)) return oauthFront.fetch(request as never, env, ctx);
    const route = routes[pathname];
    return (
      route?.fetch?.(request as never, env, ctx) ?? new Response("Not Found\n", { status: 404 })
    );
  },
} satisfies ExportedHandler<Cloudflare.Env>;
