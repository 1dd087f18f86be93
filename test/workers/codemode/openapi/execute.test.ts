// openApiMcpServer execute against an in-test upstream, and approvals over MRTR.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  openApiMcpServer,
  type OpenApiMcpServerOptions,
} from "../../../../src/codemode/openapi-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../../src/index";
import { CANARY, cloudflare, cloudflareUpstream } from "../cloudflare";
import { approver, connect, type ApproverAnswer } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

  function server(extra: Partial<OpenApiMcpServerOptions> = {}) {
    const upstream = cloudflareUpstream();
    const factory = openApiMcpServer({
      spec: cloudflare,
      executor,
      request: upstream.handler,
      secrets: [CANARY],
      ...extra,
    });
    return { upstream, factory };
  }

  async function execute(factory: ReturnType<typeof openApiMcpServer>, code: string) {
    const client = await connect(createMcpHandler(factory));
    const result = await client.callTool({ name: "execute", arguments: { code } });
    await client.close();
    return result;
  }

  describe("execute against an in-test upstream", () => {
    it.each([1, 10, 50])(
      "runs a program making %i sequential requests and returns only the answer",
      async (n) => {
        const { upstream, factory } = server();
        const result = await execute(
          factory,
          `async () => {
        const zones = (await codemode.request({ method: "GET", path: "/zones" })).result.slice(0, ${n - 1});
        const names = [];
        for (const z of zones) {
          const r = await codemode.request({ method: "GET", path: "/zones/" + z.id + "/dns_records" });
          names.push(r.result[0].name);
        }
        return { requests: ${n}, first: names[0] ?? null, count: names.length };
      }`,
        );
        expect(result.isError, text(result)).toBeFalsy();
        expect(JSON.parse(text(result))).toEqual({
          requests: n,
          first: n > 1 ? "www.zone0" : null,
          count: n - 1,
        });
        expect(upstream.seen).toHaveLength(n);
        expect(upstream.seen.every((r) => r.authorization === `Bearer ${CANARY}`)).toBe(true);
      },
    );

    it("runs requests in parallel", async () => {
      const { upstream, factory } = server();
      const result = await execute(
        factory,
        `const ids = Array.from({ length: 20 }, (_, i) => "zone" + i);
       const all = await Promise.all(ids.map((id) => codemode.request({ method: "GET", path: "/zones/" + id + "/dns_records" })));
       return all.every((r) => r.result.length === 1) && all.length`,
      );
      expect(text(result)).toBe("20");
      expect(upstream.seen).toHaveLength(20);
    });

    it('returns HTTP errors as data the code can branch on with response: "full"', async () => {
      const { factory } = server();
      const result = await execute(
        factory,
        `const r = await codemode.request({ method: "GET", path: "/zones/missing/dns_records", response: "full" }); return { status: r.status, ok: r.ok, message: r.body.errors[0].message }`,
      );
      expect(JSON.parse(text(result))).toEqual({
        status: 404,
        ok: false,
        message: "Invalid zone identifier",
      });
    });

    it("refuses a request that does not match the spec before the callback runs", async () => {
      const { upstream, factory } = server();
      const result = await execute(
        factory,
        `const out = [];
       for (const req of [
         { method: "GET", path: "/zones/abc/dns_record" },
         { method: "PATCH", path: "/zones" },
         { method: "POST", path: "/zones/abc/dns_records", body: { type: 42 } },
       ]) { try { await codemode.request(req); out.push("sent"); } catch (e) { out.push(e.name + ": " + e.message); } }
       return out`,
      );
      const [unknownPath, wrongMethod, badBody] = JSON.parse(text(result)) as string[];
      expect(unknownPath).toMatch(
        /^RequestRefusedError: GET \/zones\/abc\/dns_record: no operation in the spec has this path\. Paths that look close: .*\/zones\/\{zone_id\}\/dns_records/,
      );
      expect(wrongMethod).toMatch(/has no PATCH operation; allowed: GET, POST/);
      expect(badBody).toMatch(/dns-records-for-a-zone-create-dns-record/);
      // The list of problems ends as a sentence before the closing one.
      expect(badBody).toMatch(/[^.]\. Nothing was sent\.$/);
      expect(upstream.seen).toHaveLength(0);
    });

    it("can turn validation off", async () => {
      const { upstream, factory } = server({ validateRequests: false });
      await execute(factory, `await codemode.request({ method: "GET", path: "/not/in/spec" })`);
      expect(upstream.seen.map((r) => r.path)).toEqual(["/not/in/spec"]);
    });

    it("refuses credential headers from sandbox code", async () => {
      const { upstream, factory } = server();
      const result = await execute(
        factory,
        `await codemode.request({ method: "GET", path: "/zones", headers: { Authorization: "Bearer mine" } })`,
      );
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/authentication is added by the host/);
      expect(upstream.seen).toHaveLength(0);
    });

    it("never lets the credential reach a result or a log, even from an upstream that echoes it", async () => {
      const { factory } = server();
      const result = await execute(
        factory,
        `const r = await codemode.request({ method: "GET", path: "/ips" }); console.log(JSON.stringify(r)); return r`,
      );
      expect(text(result)).toContain("[REDACTED]");
      expect(text(result)).not.toContain(CANARY);
    });
  });

  describe("approvals over MRTR (stateless handler, 2026-07-28)", () => {
    const STATE_KEY = "approval-test-request-state-key-0123456789";

    async function approvingClient(answer: ApproverAnswer, approve = true) {
      const { upstream, factory } = server({ approval: true });
      const handler = createMcpHandler(factory, { requestState: { key: STATE_KEY } });
      return { upstream, ...(await approver(handler, answer, { approve })) };
    }

    const program = `async () => {
    const zones = (await codemode.request({ method: "GET", path: "/zones" })).result;
    const created = await codemode.request({ method: "POST", path: "/zones/" + zones[0].id + "/dns_records", body: { type: "A", name: "new.example", content: "192.0.2.9" } });
    return { created: created.result.id, zones: zones.length };
  }`;

    it("asks once, sends the approved request exactly once, and finishes the run", async () => {
      const { client, upstream, asked } = await approvingClient("accept");
      const result = await client.callTool({ name: "execute", arguments: { code: program } });
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual({ created: "new-record", zones: 60 });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(/POST \/zones\/zone0\/dns_records/);
      expect(upstream.seen.filter((r) => r.method === "POST")).toHaveLength(1);
    });

    it.each(["decline", "cancel"] as const)(
      "refuses the request when the user answers %s; nothing is sent",
      async (answer) => {
        const { client, upstream } = await approvingClient(answer);
        const result = await client.callTool({ name: "execute", arguments: { code: program } });
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(
          /RequestRefusedError: The user declined POST \/zones\/zone0\/dns_records\. Nothing was sent\./,
        );
        expect(upstream.seen.filter((r) => r.method === "POST")).toHaveLength(0);
      },
    );

    it("treats an accepted form that says no as a refusal", async () => {
      const { client, upstream } = await approvingClient("accept", false);
      const result = await client.callTool({ name: "execute", arguments: { code: program } });
      expect(text(result)).toMatch(/declined/);
      expect(upstream.seen.filter((r) => r.method === "POST")).toHaveLength(0);
    });

    it("does not ask for reads", async () => {
      const { client, asked } = await approvingClient("accept");
      const result = await client.callTool({
        name: "execute",
        arguments: {
          code: `return (await codemode.request({ method: "GET", path: "/zones", response: "full" })).status`,
        },
      });
      expect(text(result)).toBe("200");
      expect(asked).toHaveLength(0);
    });
  });
});
