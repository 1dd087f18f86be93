/**
 * The OpenAPI server's context footprint: `tools/list` (names, descriptions, input schemas) is
 * at most 700 o200k tokens whatever the spec's size, and the descriptions are golden-tested.
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { openApiMcpServer } from "../../../src/codemode/openapi-mcp-server";
import type { Executor } from "../../../src/executor/types";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { cloudflareSpec, oasExample } from "../openapi/fixtures";
import { golden } from "../../helpers/golden";

/** Listing tools never runs code; an executor that would fail loudly proves it. */
const noExecutor: Executor = { execute: () => Promise.reject(new Error("not used")) };

async function toolsList(spec: unknown) {
  const server = openApiMcpServer({
    spec,
    executor: noExecutor,
    request: () => ({ status: 500 }),
  })();
  const client = new Client({ name: "t", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  const { tools } = await client.listTools();
  await client.close();
  return tools;
}

describe("openApiMcpServer tools/list", () => {
  it("fits the whole Cloudflare API (1,533 operations) in at most 700 o200k tokens", async () => {
    const tools = await toolsList(loadSpec(cloudflareSpec()));
    expect(tools.map((t) => t.name)).toEqual(["search", "execute"]);
    const listed = JSON.stringify(
      tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    );
    const tokens = countTokens(listed);
    expect(tokens).toBeLessThanOrEqual(700);
    console.log(`tools/list for the Cloudflare spec: ${tokens} o200k tokens`);
    // The footprint does not grow with the spec: a 19-operation spec costs about the same.
    const small = countTokens(
      JSON.stringify(
        (await toolsList(oasExample("3.0/json/petstore.json"))).map(
          ({ name, description, inputSchema }) => ({ name, description, inputSchema }),
        ),
      ),
    );
    expect(Math.abs(tokens - small)).toBeLessThan(60);
  });

  it("describes search and execute exactly as the goldens say", async () => {
    const tools = await toolsList(loadSpec(cloudflareSpec()));
    await golden("openapi-search.cloudflare.txt", `${tools[0]!.description}\n`);
    await golden("openapi-execute.cloudflare.txt", `${tools[1]!.description}\n`);
    expect(tools[0]!.description).toContain("1533 operations");
    expect(tools[1]!.description).toMatch(/max 32 KB/);
  });
});
