// The answer to a body past the shape limits (src/mcp/common/shape-refusal.ts), and the lanes
// that parse a body in this package's own code before any SDK transport sees it: each refuses
// such a body unparsed, as the stateless handler does (its own test: test/workers/mcp/body-once).
import { describe, expect, it } from "vitest";
import { MAX_ID_CHARS, MAX_IDS } from "../../../src/mcp/common/json-shape";
import { refuseJsonShape } from "../../../src/mcp/common/shape-refusal";
import { checkPost } from "../../../src/mcp/sessions/agent/refuse-before-lookup";

const deep = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"x","params":{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`;

describe("refuseJsonShape", () => {
  it("takes a body within the limits (undefined: parse it)", () => {
    expect(refuseJsonShape('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toBeUndefined();
  });

  it(`refuses an id past ${MAX_ID_CHARS} characters with -32600 naming the limit, id null`, async () => {
    // 3 MiB ids (each body under the caps) were parsed, kept and echoed back whole: 60 such POSTs
    // grew the local host by hundreds of MiB (issue #40; e2e long-ids).
    const long = "x".repeat(MAX_ID_CHARS + 1);
    expect(refuseJsonShape(`{"jsonrpc":"2.0","id":"${long.slice(1)}","method":"ping"}`)).toBe(
      undefined,
    );
    const response = refuseJsonShape(`{"jsonrpc":"2.0","id":"${long}","method":"ping"}`)!;
    expect(response.status).toBe(400);
    const answer = (await response.json()) as {
      id: unknown;
      error: { code: number; message: string };
    };
    expect(answer.id).toBeNull();
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.message).toContain(`JSON-RPC id is 257 characters long`);
    expect(answer.error.message).toContain(`at most ${MAX_ID_CHARS} characters`);
    // A batch is answered as a batch; a body that is not JSON gets the parse error.
    const batch = refuseJsonShape(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"id":"${long}"}]`)!;
    expect(await batch.json()).toMatchObject([{ id: null, error: { code: -32600 } }]);
    expect(await refuseJsonShape(`{"id":"${long}",}`)!.json()).toMatchObject({
      error: { code: -32700 },
    });
  });

  it("answers a body past a limit that is not JSON with the parse error, -32700 and id null", async () => {
    // Before: -32600 naming the limit, as if less nesting would make the text JSON.
    for (const broken of [
      deep(5).slice(0, -1),
      deep(5) + ",",
      deep(5).replace('"id":5', '"id"5'),
    ]) {
      const response = refuseJsonShape(broken)!;
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error: Invalid JSON" },
      });
    }
    // A batch that is not JSON is one parse error, not an array (JSON-RPC: a batch that cannot
    // be parsed is answered as one).
    const batch = `[${Array.from({ length: 60_000 }, (_, i) => `{"id":${i}}`).join(",")},]`;
    expect(await refuseJsonShape(batch)!.json()).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
  });

  it("still answers a well-formed body past a limit with -32600 and its id", async () => {
    expect(await refuseJsonShape(deep(6))!.json()).toMatchObject({
      id: 6,
      error: { code: -32600, message: expect.stringMatching(/nests 100,00\d levels deep/) },
    });
  });

  it("answers one error with id null for a batch of more ids than it echoes", async () => {
    // Before: one ~300-character error per id, 121 MB for a 4 MB batch of {"id":1}.
    const batch = `[${Array.from({ length: 60_000 }, (_, i) => `{"id":${i}}`).join(",")}]`;
    const response = refuseJsonShape(batch)!;
    expect(response.status).toBe(400);
    const answers = (await response.json()) as { id: unknown }[];
    expect(answers).toHaveLength(1);
    expect(answers[0]!.id).toBeNull();
    expect(MAX_IDS).toBeLessThan(60_000);
  });
});

describe("the McpAgent lane's POST check (checkPost)", () => {
  it("refuses a body past the shape limits with -32600 and its id, unparsed", async () => {
    const request = new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: deep(4),
    });
    const checked = await checkPost(request);
    // A boolean, not the value: before, it was the parsed body, too deep to print.
    expect(checked instanceof Response).toBe(true);
    expect((checked as Response).status).toBe(400);
    expect(await (checked as Response).json()).toMatchObject({ id: 4, error: { code: -32600 } });
  });
});
