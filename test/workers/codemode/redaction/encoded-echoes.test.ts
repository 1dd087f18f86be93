/**
 * A hostile program against an API that echoes the credential in every encoding of
 * test/helpers/redaction/credential-echoes.ts (30 one-layer forms, 20 two-layer compositions, 21
 * spellings such as a Node Buffer as JSON, a hex dump or full-width letters, and 15 spellings
 * composed with an encoding, and test/helpers/redaction/mixed-layer-echoes.ts: three layers mixing run and
 * character encodings, UTF-16 bytes spelled out under base64, full-width copies with an escape
 * inside, 38 failing cases on the two executors before their readings), in the body
 * and in a response header, read with `response: "full"`. The program sends out everything it
 * received with `|` between the characters (so the final result redaction cannot undo a leak),
 * and the test applies each echo's own decoder to it: the credential must not come back from any.
 * Runs on both executors (the executor matrix).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import type { ApiRequestHandler } from "../../../../src/codemode/request/api-request";
import { createMcpHandler } from "../../../../src/index";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";
import {
  ECHO_SECRET,
  holds,
  SINGLE_LAYER,
  SPELLED,
  SPELLED_MORE,
  SPELLED_PAIRS,
  SPELLED_THIRD,
  SPELLED_THIRD_PAIRS,
  TWO_LAYERS,
  type CredentialEcho,
} from "../../../helpers/redaction/credential-echoes";
import {
  FULL_WIDTH_ESCAPED,
  MIXED_LAYERS,
  UTF16_SPELLED,
} from "../../../helpers/redaction/mixed-layer-echoes";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 30_000 } });
  const ECHOES = [
    ...SINGLE_LAYER,
    ...TWO_LAYERS,
    ...SPELLED,
    ...SPELLED_PAIRS,
    ...SPELLED_MORE,
    ...SPELLED_THIRD,
    ...SPELLED_THIRD_PAIRS,
    ...MIXED_LAYERS,
    ...UTF16_SPELLED,
    ...FULL_WIDTH_ESCAPED,
  ];

  const spec = {
    openapi: "3.0.3",
    info: { title: "Echo", version: "1" },
    paths: {
      "/echo/{index}": {
        get: {
          operationId: "echo",
          parameters: [{ name: "index", in: "path", required: true, schema: { type: "integer" } }],
          responses: { "200": { description: "what you sent, encoded" } },
        },
      },
    },
  };

  /** The API: sends the credential it was called with back, encoded as the echo says. */
  const echoApi: ApiRequestHandler = (request) => {
    const authorization = `Bearer ${ECHO_SECRET}`;
    const echo = ECHOES[Number(request.path.split("/").pop())]!;
    const body = echo.body(authorization.slice("Bearer ".length));
    const headers: Record<string, string> = { "content-type": echo.contentType };
    if (typeof body === "string" && /^[\x20-\x7e]*$/.test(body)) headers["x-echo"] = body;
    return new Response(body, { headers });
  };

  const SEPARATOR = "\n#####\n";

  /** Reads every echo with `response: "full"` and sends out all it got, one `|` between characters. */
  const PROGRAM = `async () => {
    const out = [];
    for (let i = 0; i < ${ECHOES.length}; i++) {
      let seen;
      try {
        const r = await codemode.request({ method: "GET", path: "/echo/" + i, response: "full" });
        const b = r.body;
        let body;
        if (b instanceof Uint8Array) { body = ""; for (const x of b) body += String.fromCharCode(x); }
        else body = typeof b === "string" ? b : JSON.stringify(b);
        seen = JSON.stringify(r.headers) + " " + body;
      } catch (e) {
        seen = "error " + String(e && e.message);
      }
      out.push("@" + i + "@" + seen.split("").join("|"));
    }
    return out.join(SEPARATOR);
  }`.replace("SEPARATOR", JSON.stringify(SEPARATOR));

  /** What the program sent out for each echo, `|` removed (missing when the output lost it). */
  const received: string[] = [];
  let output = "";

  beforeAll(async () => {
    const factory = openApiMcpServer({
      spec,
      executor,
      request: echoApi,
      secrets: [`Bearer ${ECHO_SECRET}`, ECHO_SECRET],
      // Every echo's dump in one result: more than the tool's default limit, which would cut the
      // middle of it (and leave echoes untested).
      limits: { maxResultBytes: 1_048_576 },
    });
    const client = await connect(createMcpHandler(factory));
    const result = await client.callTool({ name: "execute", arguments: { code: PROGRAM } });
    await client.close();
    output = text(result);
    for (const dump of output.split(SEPARATOR)) {
      const index = /^@(\d+)@/.exec(dump)?.[1];
      if (index !== undefined)
        received[Number(index)] = dump.slice(index.length + 2).replaceAll("|", "");
    }
  }, 120_000);

  describe("an echoed credential, however the API encodes it, never reaches the program", () => {
    it.each(ECHOES.map((echo, index) => [echo.name, echo, index] as const))(
      "%s",
      (_name, echo: CredentialEcho, index) => {
        const got = received[index];
        expect(got, `no dump for echo ${index} in: ${output.slice(0, 300)}`).toBeDefined();
        if (got === undefined) return;
        expect(got).not.toMatch(/^error/);
        expect(holds(echo.recover(got), ECHO_SECRET)).toBe(false);
        expect(got).toMatch(/\[REDACTED\]|\[\0+R|withheld/);
      },
    );
  });

  describe("response headers carrying the credential, read with response: full", () => {
    it("give the program nothing: Set-Cookie, Authorization echoes, Link, Location, WWW-Authenticate", async () => {
      const b64 = btoa(ECHO_SECRET);
      const headers = new Headers([
        ["content-type", "application/json"],
        ["set-cookie", `session=${ECHO_SECRET}; HttpOnly; Path=/`],
        ["set-cookie", `token=${encodeURIComponent(b64)}; Secure`],
        ["x-debug-authorization", `Bearer ${ECHO_SECRET}`],
        ["link", `<https://api.example/next?access_token=${ECHO_SECRET}>; rel="next"`],
        ["location", `https://api.example/cb#token=${b64}`],
        ["www-authenticate", `Bearer realm="api", error="invalid_token", token="${b64}"`],
        [`x-${ECHO_SECRET.toLowerCase().replace(/[^a-z0-9-]/g, "-")}`, "1"],
      ]);
      const factory = openApiMcpServer({
        spec,
        executor,
        request: () => new Response("{}", { status: 200, headers }),
        secrets: [`Bearer ${ECHO_SECRET}`, ECHO_SECRET],
      });
      const client = await connect(createMcpHandler(factory));
      const result = await client.callTool({
        name: "execute",
        arguments: {
          code: `async () => {
            const r = await codemode.request({ method: "GET", path: "/echo/0", response: "full" });
            return JSON.stringify(r.headers).split("").join("|");
          }`,
        },
      });
      await client.close();
      const got = text(result).replaceAll("|", "");
      expect(got).toContain("x-debug-authorization");
      for (const recover of [
        (t: string) => t,
        decodeURIComponent,
        (t: string) =>
          t.replace(/[A-Za-z0-9+/=]{12,}/g, (run) => {
            try {
              return atob(run);
            } catch {
              return run;
            }
          }),
      ])
        expect(holds(recover(got), ECHO_SECRET)).toBe(false);
      expect(got).not.toContain("session=");
    });
  });
});
