// A large API body is followed by a forced collection of the host's garbage
// (src/codemode/request/large-body-collection.ts), a binary one as a text one: a program reading
// 4 binary bodies of 4 MiB grew the host's workerd by ~100 MiB without it (issue #40,
// test/e2e/heavy-bodies.mjs with HEAVY_BODIES_KIND=random), with a credential or none.
import { describe, expect, it, vi } from "vitest";
import { toApiResult } from "../../../../src/codemode/request/api-response";
import {
  COLLECT_AFTER_BYTES,
  collectAfterLargeBody,
} from "../../../../src/codemode/request/large-body-collection";

vi.mock("../../../../src/codemode/request/large-body-collection", async (original) => ({
  ...(await original<typeof import("../../../../src/codemode/request/large-body-collection")>()),
  collectAfterLargeBody: vi.fn(() => false),
}));

const SECRET = "collection-test-secret-7d1e";

describe("the collection after a large API body", () => {
  it.each([
    ["binary, a credential configured", "application/octet-stream", [SECRET]],
    ["binary, no credential", "application/octet-stream", []],
    ["text, a credential configured", "text/plain", [SECRET]],
  ])("is asked for after a body of %s", async (_label, type, secrets) => {
    vi.mocked(collectAfterLargeBody).mockClear();
    const body = new Uint8Array(COLLECT_AFTER_BYTES).fill(0x61);
    const result = await toApiResult(
      new Response(body, { headers: { "content-type": type } }),
      secrets,
    );
    expect(
      result.body instanceof Uint8Array ? result.body.byteLength : String(result.body).length,
    ).toBe(COLLECT_AFTER_BYTES);
    expect(vi.mocked(collectAfterLargeBody).mock.calls.map(([bytes]) => bytes)).toEqual([
      COLLECT_AFTER_BYTES,
    ]);
  });
});
