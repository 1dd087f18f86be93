// Bindings of the agent test Worker (test/agent/wrangler.jsonc), merged into Cloudflare.Env.
declare namespace Cloudflare {
  interface Env {
    ADD_AGENT: DurableObjectNamespace<import("./fixtures/contract-agents").AddAgent>;
    COUNTER_AGENT: DurableObjectNamespace<import("./fixtures/contract-agents").CounterAgent>;
    ELICIT_AGENT: DurableObjectNamespace<import("./fixtures/elicit-agent").ElicitAgent>;
    NOTES_AGENT: DurableObjectNamespace<import("./fixtures/other-agents").NotesAgent>;
    SLOW_AGENT: DurableObjectNamespace<import("./fixtures/other-agents").SlowAgent>;
    V2_AGENT: DurableObjectNamespace<import("./fixtures/other-agents").V2Agent>;
    OAUTH_KV: KVNamespace;
    MCP_OBJECT: DurableObjectNamespace<import("./fixtures/default-agent").DefaultAgent>;
    FLAKY_START_AGENT: DurableObjectNamespace<import("./fixtures/default-agent").FlakyStartAgent>;
    API_AGENT: DurableObjectNamespace<import("./fixtures/api-agent").ApiAgent>;
    TASKS_AGENT: DurableObjectNamespace<import("./fixtures/tasks-agent").TasksAgent>;
  }
}
