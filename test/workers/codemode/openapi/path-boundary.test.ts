/**
 * Paths stay inside the spec (issue #13, hole 4): hostile paths against the real Cloudflare spec,
 * the real sandbox and an in-test upstream that counts what reached it. Each one is refused with
 * a clear error and nothing is sent, with validation on and off.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../../src/index";
import { cloudflare, cloudflareUpstream } from "../cloudflare";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

  async function attempt(requests: unknown[], validateRequests = true) {
    const upstream = cloudflareUpstream();
    const client = await connect(
      createMcpHandler(
        openApiMcpServer({
          spec: cloudflare,
          executor,
          request: upstream.handler,
          validateRequests,
        }),
      ),
    );
    const result = await client.callTool({
      name: "execute",
      arguments: {
        code: `async () => {
        const out = [];
        for (const req of ${JSON.stringify(requests)}) {
          try { await codemode.request({ ...req, response: "full" }); out.push("sent"); }
          catch (e) { out.push(e.name + ": " + e.message); }
        }
        return out;
      }`,
      },
    });
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    return { answers: JSON.parse(text(result)) as string[], seen: upstream.seen };
  }

  const HOSTILE: [string, Record<string, unknown>, RegExp][] = [
    [
      "backslash dot segments",
      { method: "DELETE", path: "/zones/..\\..\\accounts-delete-all" },
      /"\\"/,
    ],
    ["encoded dot segment", { method: "GET", path: "/zones/%2e%2e/dns_records" }, /"\.\." segment/],
    [
      "mixed-case encoded dot segment",
      { method: "GET", path: "/zones/%2E%2e/dns_records" },
      /"\.\." segment/,
    ],
    ["encoded slash between dots", { method: "GET", path: "/zones/..%2F.." }, /"\.\." segment/],
    ["raw dot segment", { method: "GET", path: "/zones/../dns_records" }, /"\.\." segment/],
    ["single dot segment", { method: "GET", path: "/zones/./dns_records" }, /"\." segment/],
    [
      "query in the path",
      { method: "GET", path: "/zones/a?b=1" },
      /put query parameters in `query`/,
    ],
    ["fragment in the path", { method: "GET", path: "/zones/a#x" }, /"#"/],
    ["encoded backslash", { method: "GET", path: "/zones/a%5c..%5cb" }, /"\\"/],
    ["control character", { method: "GET", path: "/zones/a%0Ab" }, /control character/],
    ["empty segment", { method: "GET", path: "/zones//dns_records" }, /empty segment/],
    [
      "malformed percent-encoding",
      { method: "GET", path: "/zones/%zz" },
      /malformed percent-encoding/,
    ],
    [
      "dot-dot in a parameter",
      { method: "GET", path: "/zones/{zone_id}", params: { zone_id: "../x" } },
      /"\.\." segment/,
    ],
    [
      "dot segment with a path parameter (Tomcat strips ';…')",
      { method: "DELETE", path: "/zones/..;/dns_records" },
      /"\.\." segment/,
    ],
    [
      "dot segment with a path parameter, in a parameter",
      { method: "GET", path: "/zones/{zone_id}/dns_records", params: { zone_id: "..;x" } },
      /"\.\." segment/,
    ],
    [
      "dots alone in a parameter",
      { method: "DELETE", path: "/zones/{zone_id}", params: { zone_id: ".." } },
      /"\.\." segment/,
    ],
  ];

  describe("hostile paths are refused before anything is sent", () => {
    it.each([true, false])("validateRequests: %s", async (validate) => {
      const { answers, seen } = await attempt(
        HOSTILE.map(([, request]) => request),
        validate,
      );
      HOSTILE.forEach(([label, , reason], i) => {
        expect(answers[i], label).toMatch(/^RequestRefusedError: codemode\.request\(\): /);
        expect(answers[i], label).toMatch(reason);
        expect(answers[i], label).toMatch(/Nothing was sent\./);
      });
      expect(seen).toHaveLength(0);
    });
  });

  describe("the canonical path is validated and sent", () => {
    it("re-encodes each segment once and keeps characters a segment may hold", async () => {
      const { answers, seen } = await attempt([
        { method: "GET", path: "/zones/a b/dns_records" },
        { method: "GET", path: "/zones/{zone_id}/dns_records", params: { zone_id: "x?y#z" } },
        { method: "GET", path: "/zones/a:b@c/dns_records" },
        { method: "GET", path: "/zones/%7Ezone/dns_records" },
      ]);
      expect(answers).toEqual(["sent", "sent", "sent", "sent"]);
      expect(seen.map((r) => r.path)).toEqual([
        "/zones/a%20b/dns_records",
        "/zones/x%3Fy%23z/dns_records",
        "/zones/a:b@c/dns_records",
        "/zones/~zone/dns_records",
      ]);
    });
  });
});
