/**
 * What the front reads of a JSON-RPC body (cli/local-server/front/body/json-rpc-members.mjs): the
 * same ids and methods as `JSON.parse` finds, read without parsing the whole body. The front runs
 * in the supervisor's one thread, beside every runtime's watchdog: 16 MCP bodies each holding a
 * 1.9-million-level nested array, parsed whole there for their ids, held it ~5.7 s, and three
 * idle runners were replaced as stuck (attack17).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { jsonRpcIds } from "../../../../../cli/local-server/front/cut-off-reply.mjs";
import { isLongWait } from "../../../../../cli/local-server/front/long-wait.mjs";
import { jsonRpcMembers } from "../../../../../cli/local-server/front/body/json-rpc-members.mjs";

/** The ids as the front found them by parsing the whole body (before attack17). */
function parsedIds(text: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(text);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages
      .filter(
        (m: any) =>
          m !== null &&
          typeof m === "object" &&
          m.jsonrpc === "2.0" &&
          typeof m.method === "string" &&
          (typeof m.id === "string" || typeof m.id === "number"),
      )
      .map((m: any) => m.id);
  } catch {
    return [];
  }
}

const BODIES = [
  `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`,
  `[{"jsonrpc":"2.0","id":"a","method":"x"},{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":2,"method":"y"},5,"s",null]`,
  `{"method":"tools/call","params":{"s":"}\\"]{[","d":[[[{}]]]},"id":1.5,"jsonrpc":"2.0"}`,
  `  {"jsonrpc":"2.0","\\u0069d":"\\u0041","method":"m"}  `,
  `{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`,
  `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
  `{"jsonrpc":"1.0","id":1,"method":"m"}`,
  `{"jsonrpc":"2.0","id":1,"method":["m"]}`,
  `{"jsonrpc":"2.0","id":null,"method":"m"}`,
  `{"jsonrpc":"2.0","id":tru,"method":"m"}`,
  `{"jsonrpc":"2.0","id":1,"method":"m"`,
  `not json`,
  ``,
  `[]`,
  `{}`,
  `"{}"`,
];

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

afterEach(() => vi.restoreAllMocks());

describe("the front's reading of a JSON-RPC body (attack17)", () => {
  it("finds the ids JSON.parse finds, for one message, a batch and broken bodies", () => {
    for (const body of BODIES) {
      expect(jsonRpcIds(Buffer.from(body)), body).toEqual(parsedIds(body));
      expect(jsonRpcIds(body), body).toEqual(parsedIds(body));
    }
  });

  it("reads each top-level message's jsonrpc, method and id, never a nested value", () => {
    expect(
      jsonRpcMembers(
        `[{"jsonrpc":"2.0","method":"tasks\\/result","id":3,"params":{"method":"x"}},{"id":[1]}]`,
      ),
    ).toEqual([{ jsonrpc: "2.0", method: "tasks/result", id: 3 }, { id: undefined }]);
  });

  it("never parses a whole body: only a member's own token", () => {
    // Guarded by what JSON.parse is given, not by time: before, the whole body went to it.
    const parse = vi.spyOn(JSON, "parse");
    const body = `{"method":"tools/call","params":{"note":"tasks/result","x":${nested(100_000)}},"jsonrpc":"2.0","id":"\\u0031"}`;
    expect(jsonRpcIds(Buffer.from(body))).toEqual(["1"]);
    expect(isLongWait(Buffer.from(body))).toBe(false);
    expect(isLongWait(Buffer.from(body.replace(`"tools/call"`, `"tasks\\/result"`)))).toBe(true);
    const longest = Math.max(0, ...parse.mock.calls.map(([text]) => String(text).length));
    expect(longest).toBeLessThan(64);
  });
});
