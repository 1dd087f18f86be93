/**
 * Approvals that mean what the user saw (issue #13, hole 3), driven as a hostile client would:
 * raw 2026-07-28 JSON-RPC rounds against the real handler, the real sandbox and an in-test
 * upstream that counts what reached it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  openApiMcpServer,
  type OpenApiMcpServerOptions,
} from "../../../src/codemode/openapi-mcp-server";
import type { ApiRequest, ApiRequestHandler } from "../../../src/codemode/request/api-request";
import { describeExecutors } from "../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../src/index";
import { modernRequest, rpcBody } from "../mcp/fixtures";
import { NOTES_SPEC } from "../../helpers/specs/notes-spec";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
  const KEY = "approval-binding-test-state-key-0123456789";
  const capabilities = { elicitation: { form: {} } };
  const ACCEPT = { approve_request: { action: "accept", content: { approve: true } } };

  /** The upstream stand-in: records every request that reached it. */
  function notesUpstream() {
    const seen: ApiRequest[] = [];
    const handler: ApiRequestHandler = (request) => {
      seen.push(request);
      return { status: 201, body: { id: `note${seen.length}` } };
    };
    return { handler, seen };
  }

  function handlerWith(extra: Partial<OpenApiMcpServerOptions> = {}) {
    const upstream = notesUpstream();
    const handler = createMcpHandler(
      openApiMcpServer({
        spec: NOTES_SPEC,
        executor,
        request: upstream.handler,
        approval: true,
        ...extra,
      }),
      { requestState: { key: KEY } },
    );
    let id = 1;
    const call = async (code: string, round: Record<string, unknown> = {}) =>
      rpcBody(
        await handler.fetch(
          modernRequest(
            "tools/call",
            { name: "execute", arguments: { code }, ...round },
            { capabilities, id: id++ },
          ),
        ),
      );
    return { call, seen: upstream.seen };
  }

  /** The prompt and sealed state of an `input_required` answer. */
  function asked(body: any): { message: string; requestState: string } {
    expect(body.result?.resultType, JSON.stringify(body)).toBe("input_required");
    const request = body.result.inputRequests.approve_request;
    return { message: String(request.params.message), requestState: body.result.requestState };
  }

  const post = (fields: string) => `async () => {
  const r = await codemode.request({ method: "POST", path: "/notes", ${fields} });
  return r.id;
}`;

  describe("single-use approvals over MRTR", () => {
    it("sends an accepted request once; replaying the accepted round is refused and sends nothing", async () => {
      const { call, seen } = handlerWith();
      const code = post(`body: { text: "buy milk" }`);
      const { requestState } = asked(await call(code));
      const first = await call(code, { requestState, inputResponses: ACCEPT });
      expect(first.result.content[0].text).toBe("note1");
      for (let i = 0; i < 3; i++) {
        const replay = await call(code, { requestState, inputResponses: ACCEPT });
        expect(replay.result.isError).toBe(true);
        expect(replay.result.content[0].text).toContain(
          "RequestRefusedError: this approval was already used; nothing was sent.",
        );
      }
      expect(seen).toHaveLength(1);
    });

    it("keeps replaying already-sent responses in later rounds and asks for the next request", async () => {
      const { call, seen } = handlerWith();
      const code = `async () => {
      const a = await codemode.request({ method: "POST", path: "/notes", body: { text: "one" } });
      const b = await codemode.request({ method: "POST", path: "/notes", body: { text: "two" } });
      return [a.id, b.id].join(",");
    }`;
      const one = asked(await call(code));
      expect(one.message).toContain('{"text":"one"}');
      const two = asked(
        await call(code, { requestState: one.requestState, inputResponses: ACCEPT }),
      );
      expect(two.message).toContain('{"text":"two"}');
      const done = await call(code, { requestState: two.requestState, inputResponses: ACCEPT });
      expect(done.result.content[0].text).toBe("note1,note2");
      expect(seen.map((r) => r.body)).toEqual([{ text: "one" }, { text: "two" }]);
    });
  });

  describe("an approval covers exactly the request shown", () => {
    it.each([
      [
        "headers",
        `body: { text: "x" }, headers: { "x-note": "a" }`,
        `body: { text: "x" }, headers: { "x-note": "evil" }`,
      ],
      [
        "rawBody",
        `rawBody: "plain words", contentType: "text/plain"`,
        `rawBody: "other words", contentType: "text/plain"`,
      ],
      [
        "contentType",
        `body: { text: "x" }, contentType: "application/json"`,
        `body: { text: "x" }, contentType: "text/plain"`,
      ],
      [
        "query",
        `body: { text: "x" }, query: { tag: "a" }`,
        `body: { text: "x" }, query: { tag: "b" }`,
      ],
    ])(
      "an approval of a request does not cover one with other %s: nothing is sent, the user is asked",
      async (_what, shown, swapped) => {
        const { call, seen } = handlerWith();
        const { requestState } = asked(await call(post(shown)));
        // A hostile client answers "accept" for the shown request but reruns another program.
        const next = await call(post(swapped), { requestState, inputResponses: ACCEPT });
        asked(next);
        expect(seen).toHaveLength(0);
      },
    );
  });

  describe("the prompt shows what will be sent", () => {
    it("shows a raw body, its content type and the sandbox's headers", async () => {
      const { call } = handlerWith();
      const { message } = asked(
        await call(
          post(
            `rawBody: "hello raw world", contentType: "text/plain", headers: { "x-note": "n1" }`,
          ),
        ),
      );
      expect(message).toContain("POST /notes");
      expect(message).toContain("x-note: n1");
      expect(message).toContain("text/plain");
      expect(message).toContain("hello raw world");
    });

    it("marks a long body as truncated and names its total size", async () => {
      const { call } = handlerWith();
      const { message } = asked(await call(post(`body: { text: "z".repeat(5000) }`)));
      expect(message).toContain("… [truncated: 2,000 of 5,011 characters shown]");
      expect(message).not.toContain("z".repeat(2001));
    });

    it("shows the normalized path that will be sent", async () => {
      const { call } = handlerWith();
      const { message } = asked(
        await call(
          `await codemode.request({ method: "DELETE", path: "/notes/{id}", params: { id: "a b" } })`,
        ),
      );
      expect(message.split("\n")[1]).toBe("DELETE /notes/a%20b");
    });
  });
});
