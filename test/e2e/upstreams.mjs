// Several upstream MCP servers behind /mcp/code, the way a user configures them:
// `UPSTREAM_MCP_URL="github=…, jira=…" UPSTREAM_MCP_AUTH='{"github":"Bearer …"}' npm start`.
// Two real MCP servers run here in Node (SDK v1, Streamable HTTP); one program calls tools on
// both through their prefixed names; the credential reaches only its own server and never shows.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { z } from "zod";
import { json, mcpUpstream } from "./support/mcp-upstream.mjs";
import { text } from "./support/programs.mjs";
import { check, withServer } from "./support/server.mjs";

const CANARY = `gh-e2e-canary-${crypto.randomUUID()}`;

const github = await mcpUpstream((server) => {
  server.registerTool(
    "list_issues",
    { description: "Open issues of a repository.", inputSchema: { repo: z.string() } },
    async ({ repo }) =>
      json({
        issues: [
          { title: `${repo}: login fails`, ticket: "APP-1" },
          { title: `${repo}: slow search`, ticket: "APP-2" },
        ],
      }),
  );
}, `Bearer ${CANARY}`);
const jira = await mcpUpstream((server) => {
  server.registerTool(
    "get_ticket",
    { description: "A ticket by key.", inputSchema: { key: z.string() } },
    async ({ key }) => json({ key, status: key === "APP-1" ? "in progress" : "open" }),
  );
}, undefined);

try {
  await withServer(
    {
      UPSTREAM_MCP_URL: `github=${github.url}, jira=${jira.url}`,
      UPSTREAM_MCP_AUTH: JSON.stringify({ github: `Bearer ${CANARY}` }),
    },
    async ({ url, output }) => {
      const client = new Client(
        { name: "e2e-upstreams", version: "1.0.0" },
        { versionNegotiation: { mode: "auto" } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/code`)));
      const { tools } = await client.listTools();
      const description = tools[0]?.description ?? "";
      check(tools.length === 1 && tools[0]?.name === "code", `tools: ${tools.map((t) => t.name)}`);
      check(
        description.includes("github") && description.includes("jira"),
        `the code tool does not name both servers: ${description.slice(0, 400)}`,
      );
      const result = await client.callTool({
        name: "code",
        arguments: {
          code: `async () => {
            const { issues } = await codemode.github_list_issues({ repo: "acme/app" });
            const out = [];
            for (const i of issues) out.push({ title: i.title, status: (await codemode.jira_get_ticket({ key: i.ticket })).status });
            return out;
          }`,
        },
      });
      check(!result.isError, `code → ${text(result)}`);
      const expected = [
        { title: "acme/app: login fails", status: "in progress" },
        { title: "acme/app: slow search", status: "open" },
      ];
      check(
        JSON.stringify(JSON.parse(text(result))) === JSON.stringify(expected),
        `code → ${text(result)}`,
      );
      await client.close();
      check(github.seen.length > 0, "the github server was never called");
      check(
        github.seen.every((auth) => auth === `Bearer ${CANARY}`),
        "a request reached the github server without its credential",
      );
      check(jira.seen.length > 0, "the jira server was never called");
      check(
        jira.seen.every((auth) => auth === undefined),
        "the github credential (or another) reached the jira server",
      );
      check(!JSON.stringify(result).includes(CANARY), "the tool result contains the credential");
      check(!output().includes(CANARY), "npm start's output contains the credential");
      console.log(
        `e2e upstreams: one code tool over github and jira; a program used both (${github.seen.length} and ${jira.seen.length} requests); the credential went only to github and never showed — ok`,
      );
    },
  );
} finally {
  github.close();
  jira.close();
}
