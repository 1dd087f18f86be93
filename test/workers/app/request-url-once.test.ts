/**
 * The product Worker reads a request's URL parts once (src/mcp/common/request-url.ts): the
 * Worker's probe check, the app's router, the MCP handler's route match and its Host guard all
 * read the same parts, where each parsed `request.url` again before (issue #43: ~4 % of a
 * `ping`'s host CPU).
 */
import { describe, expect, it } from "vitest";
import type { AppSettings } from "../../../src/app/config/config";
import { CLUSTER_SECRET_HEADER } from "../../../src/executor/runners/cluster-secret";
import { configured } from "./helpers";

const NativeURL = URL;
// The global the readers construct from (typed here: not every test area declares it).
const scope = globalThis as unknown as { URL: typeof URL };
const SECRET = "request-url-test-secret";

describe("a request through the product Worker", () => {
  it("parses its URL once, with or without the cluster secret", async () => {
    for (const settings of [{ LOCAL_CLUSTER_SECRET: SECRET } as AppSettings, {}]) {
      const worker = configured(settings);
      // A URL no other request used, so the first parse is this request's own.
      const url = `http://localhost/mcp?once=${crypto.randomUUID()}`;
      let parses = 0;
      scope.URL = class extends NativeURL {
        constructor(given: string | URL, base?: string | URL) {
          super(given, base);
          if (String(given) === url) parses++;
        }
      } as typeof URL;
      let answer: Response;
      try {
        answer = await worker(url, {
          method: "POST",
          headers: {
            // As every request reaching a Worker has (read instead of the URL's host).
            host: "localhost",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            [CLUSTER_SECRET_HEADER]: SECRET,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        });
      } finally {
        scope.URL = NativeURL;
      }
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
      expect(parses).toBe(1);
    }
  });
});
