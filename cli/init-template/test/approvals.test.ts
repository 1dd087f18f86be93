// Every request but a GET waits for a person (src/api.ts, `approval: true`): the client is asked,
// with the exact request shown, and a declined request is never sent. The request is one of the
// spec's own writes whose only required inputs are path parameters (filled with a plain value),
// so the check holds for any spec that has such an operation.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import spec from "../src/openapi.json";
import { callerHeaders, text, worker } from "./client";

type Json = Record<string, unknown>;
const WRITES = ["post", "put", "patch", "delete"];

/** `value`, or the object its local `$ref` points to. */
function resolve(value: unknown): Json {
  const ref = (value as Json | undefined)?.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return (value ?? {}) as Json;
  let node: unknown = spec;
  for (const key of ref.slice(2).split("/"))
    node = (node as Json)?.[key.replaceAll("~1", "/").replaceAll("~0", "~")];
  return (node ?? {}) as Json;
}

/** A write of the spec that needs nothing but plain string path parameters, as a request. */
function aWrite(): { method: string; path: string } | undefined {
  for (const [template, item] of Object.entries(spec.paths as Record<string, Json>)) {
    const shared = ((item.parameters as unknown[]) ?? []).map(resolve);
    for (const method of WRITES) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const params = [...shared, ...((operation.parameters as unknown[]) ?? []).map(resolve)];
      const body = resolve(operation.requestBody);
      const plain = (p: Json) => {
        const schema = resolve(p.schema ?? p);
        return schema.type === "string" && !schema.pattern && !schema.enum && !schema.format;
      };
      if (body.required === true) continue;
      if (params.some((p) => p.required === true && p.in !== "path")) continue;
      if (params.some((p) => p.in === "body" || p.in === "formData")) continue;
      if (params.some((p) => p.in === "path" && !plain(p))) continue;
      return { method: method.toUpperCase(), path: template.replaceAll(/\{[^}]+\}/g, "abc123") };
    }
  }
  return undefined;
}

const write = aWrite();

describe("approvals", () => {
  it.skipIf(write === undefined)(
    "asks before a write, and sends nothing when declined",
    async () => {
      const client = new Client(
        { name: "approver", version: "1.0.0" },
        { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: { form: {} } } },
      );
      const asked: string[] = [];
      client.setRequestHandler("elicitation/create", async (request) => {
        asked.push(String(request.params.message));
        return { action: "decline" };
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL("/mcp", "http://localhost"), {
          fetch: (url, init) => worker.fetch(new Request(url, init)),
          requestInit: { headers: await callerHeaders() },
        }),
      );
      const result = await client.callTool({
        name: "execute",
        arguments: {
          code: `async () => codemode.request(${JSON.stringify({ method: write!.method, path: write!.path })})`,
        },
      });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(`${write!.method} ${write!.path}`);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/declin|not approved|refused/i);
      await client.close();
    },
  );
});
