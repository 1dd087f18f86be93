/**
 * Seed example examples/oauth-api-handler.ts: `apiHandler: createMcpHandler(createServer)`. A
 * known limitation, recorded here so it is noticed if it changes: the pinned
 * @cloudflare/workers-oauth-provider (1.2.x) accepts an object with `fetch` or a
 * WorkerEntrypoint class, and refuses any other function at construction, so a callable handler
 * (ours, like agents' own) cannot be passed as is. The working form is the one the McpAgent page
 * uses: an object, `{ fetch: (request, env, ctx) => handler(request, env, ctx) }` (see
 * support/whoami-worker.ts, exercised by whoami.test.ts).
 */
import { describe, expect, it } from "vitest";
import { build } from "./examples/oauth-api-handler";

describe("seed: OAuthProvider apiHandler = createMcpHandler(…)", () => {
  it("is refused by the OAuth provider with a message naming apiHandler", () => {
    expect(build).toThrow(
      /apiHandler must be either an ExportedHandler object with a fetch method or a class extending WorkerEntrypoint/,
    );
  });
});
