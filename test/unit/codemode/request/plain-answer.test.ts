// Hostile (issue #40): a request callback's plain answer (the forwarded-token path's, which
// carries the API's response already parsed) was searched for the configured secrets by one
// synchronous `redactor.data` walk, so an echo of a few MB the program asked for held the host's
// thread, which serves every client, for the whole walk. Through the real path (apiRequester,
// the real redactor): other tasks run while a large answer is searched (counted, never timed),
// the copy is the one `redactor.data` makes, and a small answer is still answered at once.
// Before the fix: 0 other tasks ran while the answer was searched.
import { describe, expect, it } from "vitest";
import { apiRequester } from "../../../../src/codemode/api-requester";
import { withinSize } from "../../../../src/codemode/request/plain-answer";
import { secretRedactor } from "../../../../src/codemode/redaction/redaction";
import { loadSpec } from "../../../../src/openapi/openapi-spec";

const TOKEN = "tok_Live.9f8e/7d6c-5b4a";
const secrets = Object.freeze([`Bearer ${TOKEN}`, TOKEN]);
const spec = loadSpec({
  openapi: "3.0.3",
  info: { title: "echo", version: "1" },
  paths: { "/echo": { get: { operationId: "echo", responses: { 200: { description: "ok" } } } } },
});
const requester = (answer: unknown) =>
  apiRequester({ spec, handler: () => answer, validate: true, secrets, mcp: {} as never });
const signal = new AbortController().signal;
const get = { method: "GET", path: "/echo" };

describe("a request callback's plain answer", () => {
  it("leaves the host's thread to other tasks while a large answer is searched", async () => {
    // 2 MiB of escapes in 64 strings, with the token among them.
    const items = Array.from({ length: 64 }, (_, i) => ({
      id: i,
      note: `${i}${"%2541%25%41a%2525".repeat(2_048)}${i === 7 ? TOKEN : ""}`,
    }));
    const answer = { status: 200, body: { items } };
    let others = 0;
    const other = setInterval(() => others++, 0);
    let result: { body: unknown };
    try {
      result = (await requester(answer)(get, signal)) as { body: unknown };
    } finally {
      clearInterval(other);
    }
    expect(others).toBeGreaterThan(4);
    expect(result.body).toEqual(secretRedactor(secrets).data(answer.body));
    expect(JSON.stringify(result.body)).not.toContain(TOKEN);
    expect(JSON.stringify(result.body)).toContain("[REDACTED]");
  });

  it("answers a small answer at once, redacted", () => {
    const result = requester({ status: 200, body: { echo: `Bearer ${TOKEN}` } })(get, signal);
    expect(result).not.toBeInstanceOf(Promise);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });
});

describe("withinSize", () => {
  it("counts strings, keys, members and bytes, and stops past the limit", () => {
    expect(withinSize({ a: "x".repeat(10) }, 100)).toBe(true);
    expect(withinSize({ a: "x".repeat(100) }, 100)).toBe(false);
    expect(withinSize(new Uint8Array(200), 100)).toBe(false);
    // Members count one at least: many empty strings are not free.
    expect(
      withinSize(
        Array.from({ length: 200 }, () => ""),
        100,
      ),
    ).toBe(false);
    expect(withinSize({ ["k".repeat(120)]: 1 }, 100)).toBe(false);
    // Maps, sets and errors take the sliced path, which reads them as redactor.data does.
    expect(withinSize(new Map(), 100)).toBe(false);
  });

  it("reads a shared or cyclic object once", () => {
    const shared = { s: "x".repeat(30) };
    const cyclic: Record<string, unknown> = { shared };
    cyclic.self = cyclic;
    expect(withinSize([shared, shared, shared, cyclic], 100)).toBe(true);
  });
});
