// openApiMcpServer search over the Cloudflare spec, and runaway search programs.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer } from "../../../src/codemode/openapi-mcp-server";
import { WorkerLoaderExecutor } from "../../../src/executor/worker-loader-executor";
import { createMcpHandler } from "../../../src/index";
import { CANARY, cloudflare, cloudflareUpstream } from "./cloudflare";
import { connect } from "../../helpers/mcp-client";
import { text } from "../../helpers/tool-result";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
const upstream = cloudflareUpstream();
const handler = createMcpHandler(
  openApiMcpServer({ spec: cloudflare, executor, request: upstream.handler, secrets: [CANARY] }),
);

async function search(code: string) {
  const client = await connect(handler);
  const result = await client.callTool({ name: "search", arguments: { code } });
  await client.close();
  expect(result.isError, text(result)).toBeFalsy();
  const body = text(result).split("\n\nConsole output:")[0]!;
  // String results come back as they are; everything else as JSON.
  return /^[[{"]/.test(body) ? JSON.parse(body) : body;
}

describe("search over the Cloudflare spec", () => {
  it("finds the rulesets operations", async () => {
    const ops = await search(`async () => {
      const s = await codemode.spec();
      return Object.entries(s.paths).filter(([p]) => p.endsWith("/rulesets")).flatMap(([p, ops]) => Object.entries(ops).map(([m, o]) => m.toUpperCase() + " " + p + " " + o.operationId));
    }`);
    expect(ops).toContain("GET /zones/{zone_id}/rulesets listZoneRulesets");
    expect(ops).toContain("POST /accounts/{account_id}/rulesets createAccountRuleset");
  });

  it("finds the DNS-records operations under /zones/{zone_id}", async () => {
    const ops = await search(`const s = await codemode.spec();
      return Object.keys(s.paths).filter((p) => p.startsWith("/zones/{zone_id}/dns_records")).sort()`);
    expect(ops).toContain("/zones/{zone_id}/dns_records");
    expect(ops).toContain("/zones/{zone_id}/dns_records/{dns_record_id}");
    expect(ops).toContain("/zones/{zone_id}/dns_records/export");
  });

  it("reads one operation by operationId with its parameters and request-body schema, refs resolved", async () => {
    const op = await search(`async () => {
      const s = await codemode.spec();
      for (const ops of Object.values(s.paths)) for (const o of Object.values(ops)) {
        if (o.operationId === "dns-records-for-a-zone-create-dns-record") {
          const schema = o.requestBody.content["application/json"].schema;
          return { params: o.parameters.map((p) => p.name + ":" + p.in), variants: schema.oneOf.length, firstType: schema.oneOf[0].allOf?.length ?? 0 };
        }
      }
    }`);
    expect(op.params).toContain("zone_id:path");
    expect(op.variants).toBeGreaterThan(10);
  });

  it("counts tags across all operations, matching the host's count", async () => {
    const counts = await search(`const s = await codemode.spec(); const c = {};
      for (const ops of Object.values(s.paths)) for (const o of Object.values(ops)) for (const t of o.tags ?? []) c[t] = (c[t] ?? 0) + 1;
      return { tags: Object.keys(c).length, dns: c["DNS Records for a Zone"] }`);
    const expected = new Map<string, number>();
    for (const op of cloudflare.operations)
      for (const t of op.tags ?? []) expected.set(t, (expected.get(t) ?? 0) + 1);
    expect(counts).toEqual({ tags: expected.size, dns: expected.get("DNS Records for a Zone") });
  });

  it("returns TypeScript declarations for an operation", async () => {
    const declaration = await search(
      `return await codemode.declaration("dns-records-for-a-zone-create-dns-record")`,
    );
    expect(declaration).toContain("interface DnsRecordsForAZoneCreateDnsRecordRequest");
    expect(declaration).toContain('method: "POST"');
  });

  it("marks cycles instead of expanding them, and the sandbox never sees the credential", async () => {
    const found = await search(
      `const text = JSON.stringify((await codemode.spec()).components); return { circular: text.includes('"$circular"'), bytes: text.length, canary: text.includes(${JSON.stringify(CANARY)}) }`,
    );
    expect(found.circular).toBe(true);
    expect(found.canary).toBe(false);
  });
});

describe("runaway search programs", () => {
  it("stops a program that serializes the whole spec, via the operation budget", async () => {
    const tight = createMcpHandler(
      openApiMcpServer({
        spec: cloudflare,
        executor,
        request: upstream.handler,
        limits: { maxOperations: 100_000 },
      }),
    );
    const client = await connect(tight);
    const result = await client.callTool({
      name: "search",
      arguments: { code: "return JSON.stringify(await codemode.spec()).length" },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^LIMIT: LimitError: Operation budget of 100000 exceeded/);
    // The server keeps serving.
    const ok = await client.callTool({
      name: "search",
      arguments: { code: "return Object.keys((await codemode.spec()).paths).length" },
    });
    expect(text(ok)).toBe("965");
  });
});
