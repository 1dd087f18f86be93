// A POST's JSON body is read once, from the request itself, and handed to the SDK parsed
// (src/mcp/stateless/body-once.ts): no clone on either lane; bodies that are not JSON, too
// large or unreadable still get the SDK's own answers.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMcpHandler } from "../../../src/index";
import { readBodyOnce } from "../../../src/mcp/stateless/body-once";
import { buildServer, legacyRequest, modernRequest, rpcBody, URL_LOCAL } from "./fixtures";

const JSON_POST = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A body streamed in `parts` (no Content-Length, as a chunked upload arrives). */
function streamed(parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < parts.length) controller.enqueue(encoder.encode(parts[next++]));
      else controller.close();
    },
  });
}

afterEach(() => vi.restoreAllMocks());

describe("readBodyOnce", () => {
  it("parses a JSON POST from the request itself", async () => {
    const request = legacyRequest({ jsonrpc: "2.0", id: 1, method: "ping" });
    const once = await readBodyOnce(request, 1024);
    expect(once.parsedBody).toEqual({ jsonrpc: "2.0", id: 1, method: "ping" });
    expect(once.request).toBe(request);
    expect(request.bodyUsed).toBe(true);
  });

  it("leaves alone what the SDK would not read: other methods, content types, a parsed body, a declared size over the limit", async () => {
    const get = new Request(URL_LOCAL, { method: "GET" });
    const text = new Request(URL_LOCAL, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    const declared = legacyRequest({ text: "x".repeat(2048) }, { "content-length": "2062" });
    for (const request of [get, text, declared]) {
      const once = await readBodyOnce(request, 1024);
      expect(once.request).toBe(request);
      expect(once.parsedBody).toBeUndefined();
      expect(request.bodyUsed).toBe(false);
    }
    const given = legacyRequest("{}");
    expect(await readBodyOnce(given, 1024, { already: true })).toEqual({
      request: given,
      parsedBody: { already: true },
    });
    expect(given.bodyUsed).toBe(false);
  });

  it("passes a body that is not JSON, or empty, on as the same bytes", async () => {
    for (const body of ["{not json", ""]) {
      const once = await readBodyOnce(legacyRequest(body), 1024);
      expect(once.parsedBody).toBeUndefined();
      expect(await once.request.text()).toBe(body);
      expect(once.request.headers.get("content-type")).toBe("application/json");
    }
  });

  it("decodes each body alone: a body cut inside a character leaves nothing for the next", async () => {
    // One decoder serves every request of the isolate (body-once.ts): a body ending in the first
    // byte of "é" must neither change the next body nor lose its own bytes.
    const cut = new Uint8Array([0x22, 0xc3]);
    const first = await readBodyOnce(
      new Request(URL_LOCAL, { method: "POST", headers: JSON_POST, body: cut }),
      1024,
    );
    expect(first.parsedBody).toBeUndefined();
    expect(new Uint8Array(await first.request.arrayBuffer())).toEqual(cut);
    const second = await readBodyOnce(legacyRequest({ text: "é ok" }), 1024);
    expect(second.parsedBody).toEqual({ text: "é ok" });
    const split = await readBodyOnce(
      new Request(URL_LOCAL, {
        method: "POST",
        headers: JSON_POST,
        body: streamed(['{"t":"é', '"}']),
      }),
      1024,
    );
    expect(split.parsedBody).toEqual({ t: "é" });
  });

  it("reads a body of declared length in one step, without a stream reader", async () => {
    // A received request's framing holds its body to its Content-Length: the runtime reads it
    // whole (a reader's chunk loop was ~5 % of a ping's host CPU, issue #43).
    const getReader = vi.spyOn(ReadableStream.prototype, "getReader");
    const request = legacyRequest(
      { jsonrpc: "2.0", id: 3, method: "ping" },
      { "content-length": "40" },
    );
    const once = await readBodyOnce(request, 1024);
    expect(once.parsedBody).toEqual({ jsonrpc: "2.0", id: 3, method: "ping" });
    expect(once.request).toBe(request);
    expect(getReader).not.toHaveBeenCalled();
  });

  it("passes on every byte of a body larger than it declares, for the SDK to refuse", async () => {
    // Only a Request built in-process can carry more than its Content-Length says.
    const body = `[${"1,".repeat(1000)}2]`;
    const request = legacyRequest(body, { "content-length": "10" });
    const once = await readBodyOnce(request, 1000);
    expect(once.parsedBody).toBeUndefined();
    expect(await once.request.text()).toBe(body);
    const small = createMcpHandler(buildServer, { maxRequestBodySize: 1000 });
    expect((await small.fetch(legacyRequest(body, { "content-length": "10" }))).status).toBe(413);
  });

  it("stops reading a streamed body past the limit and passes every byte on", async () => {
    const parts = ["[", "1,".repeat(400), "2,".repeat(400), "3]"];
    let pulled = 0;
    const source = streamed(parts);
    const counting = source.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          pulled++;
          controller.enqueue(chunk);
        },
      }),
    );
    const request = new Request(URL_LOCAL, { method: "POST", headers: JSON_POST, body: counting });
    const once = await readBodyOnce(request, 1000);
    expect(once.parsedBody).toBeUndefined();
    // Read up to the chunk that crossed the limit, not to the end.
    expect(pulled).toBeLessThan(parts.length);
    expect(await once.request.text()).toBe(parts.join(""));
  });
});

describe("the handler reads a body once", () => {
  const handler = createMcpHandler(buildServer, {
    tasks: { namespace: () => env.MCP_TASKS, name: "body-once-test" },
  });

  it("clones no request on either lane", async () => {
    const clone = vi.spyOn(Request.prototype, "clone");
    const pong = await handler.fetch(legacyRequest({ jsonrpc: "2.0", id: 7, method: "ping" }));
    expect(await pong.json()).toEqual({ result: {}, jsonrpc: "2.0", id: 7 });
    const listed = await rpcBody(await handler.fetch(modernRequest("tools/list")));
    expect(listed.result.tools.length).toBeGreaterThan(0);
    const legacyList = await rpcBody(
      await handler.fetch(legacyRequest({ jsonrpc: "2.0", id: 8, method: "tools/list" })),
    );
    expect(legacyList.result.tools.length).toBeGreaterThan(0);
    expect(clone).not.toHaveBeenCalled();
  });

  it("still answers a streamed body over the limit with the SDK's 413, and bad JSON with -32700", async () => {
    const small = createMcpHandler(buildServer, { maxRequestBodySize: 1024 });
    const big = new Request(URL_LOCAL, {
      method: "POST",
      headers: JSON_POST,
      body: streamed([
        '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"',
        "y".repeat(4096),
        '"}}',
      ]),
    });
    expect((await small.fetch(big)).status).toBe(413);
    const bad = new Request(URL_LOCAL, {
      method: "POST",
      headers: JSON_POST,
      body: streamed(["{not", " json"]),
    });
    expect((await rpcBody(await small.fetch(bad))).error.code).toBe(-32700);
  });
});

describe("the handler refuses a body past the shape limits before parsing it (issue #40)", () => {
  const handler = createMcpHandler(buildServer);
  /** An `echo` call whose `text` is `value` (JSON text), as a 2025-era client sends it. */
  const echo = (id: number | string, value: string) =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"echo","arguments":{"text":${value}}}}`;

  it("answers a 1.9-million-level body with -32600 naming the limit, its id echoed, unparsed", async () => {
    // Before: the body was parsed whole (~420 ms of the local host's CPU) and the SDK answered a
    // tool error about `text`'s type with status 200.
    const deep = "[".repeat(1_900_000) + "]".repeat(1_900_000);
    const parse = vi.spyOn(JSON, "parse");
    const response = await handler.fetch(legacyRequest(echo(11, deep)));
    expect(parse).not.toHaveBeenCalled();
    expect(response.status).toBe(400);
    const answer = await response.json();
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: 11, error: { code: -32600 } });
    expect((answer as { error: { message: string } }).error.message).toMatch(
      /nests 1,900,00\d levels deep; this server takes at most 64/,
    );
  });

  it("answers a batch with one error per id, and a body of 200,000 keys too", async () => {
    const keys = `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":0`).join(",")}}`;
    const batch = `[${echo("a", '"ok"')},${echo("b", keys)}]`;
    const response = await handler.fetch(legacyRequest(batch));
    expect(response.status).toBe(400);
    const answers = (await response.json()) as { id: unknown; error: { message: string } }[];
    expect(answers.map((a) => a.id)).toEqual(["a", "b"]);
    expect(answers[0]!.error.message).toMatch(/takes at most 100,000 in one request/);
    // A batch is answered as one even when only one of its messages has an id.
    const one = await handler.fetch(
      legacyRequest(`[{"jsonrpc":"2.0","method":"x"},${echo(5, keys)}]`),
    );
    expect(((await one.json()) as { id: unknown }[]).map((a) => a.id)).toEqual([5]);
  });

  it("still serves a body at the depth limit", async () => {
    // The message, params, arguments and an object in `text`: 4 of the 64 levels.
    const inner = `${"[".repeat(60)}${"]".repeat(60)}`;
    const answer = await rpcBody(await handler.fetch(legacyRequest(echo(12, `{"a":${inner}}`))));
    // Served by the SDK: its own input error about the type of `text`, not a shape refusal.
    expect(answer.id).toBe(12);
    expect(JSON.stringify(answer)).not.toMatch(/levels deep/);
  });
});
