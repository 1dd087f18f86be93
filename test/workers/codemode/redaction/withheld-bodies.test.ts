/**
 * `withholdResponseBodies`: the operator's switch for operations known to reflect the request.
 * The stand-in API's `reflect` operation answers with the credential XORed with a key the program
 * knows (a keyed transform no reading of the body can undo: the honest limit of redaction); with
 * the switch the program gets status, headers and a note instead, and other operations are
 * untouched. An unknown operation id is refused at start, naming it.
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { CodeModeError, createMcpHandler } from "../../../../src/index";
import { ECHO_SECRET } from "../../../helpers/redaction/credential-echoes";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

const SPEC = {
  openapi: "3.0.3",
  info: { title: "Reflector", version: "1" },
  paths: {
    "/reflect": {
      get: { operationId: "reflect", responses: { "200": { description: "what you sent" } } },
    },
    "/plain": {
      get: { operationId: "plain", responses: { "200": { description: "a fixed answer" } } },
    },
    "/reflect-error": {
      get: { operationId: "reflectError", responses: { "400": { description: "echoed" } } },
    },
  },
};

/** The credential XORed byte by byte with 42, as numbers: readable only with the key. */
const xored = [...ECHO_SECRET].map((c) => c.charCodeAt(0) ^ 42);

/** Reads all three operations and undoes the XOR on whatever came back. */
const PROGRAM = `async () => {
  // Split by "|" on the way out: the final result's redaction does not read that spelling.
  const unxor = (v) => Array.isArray(v) ? v.map((n) => String.fromCharCode(n ^ 42)).join("|") : JSON.stringify(v);
  const r = await codemode.request({ method: "GET", path: "/reflect", response: "full" });
  const p = await codemode.request({ method: "GET", path: "/plain" });
  let e;
  try { await codemode.request({ method: "GET", path: "/reflect-error" }); } catch (err) { e = err; }
  return {
    status: r.status,
    header: r.headers["x-served-by"],
    reflected: unxor(r.body && r.body.xored),
    note: r.body,
    plain: p,
    errorStatus: e && e.status,
    errorBody: e && unxor(e.body && e.body.xored),
  };
}`;

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

  const run = async (withhold?: string[]) => {
    const factory = openApiMcpServer({
      spec: SPEC,
      executor,
      secrets: [ECHO_SECRET],
      ...(withhold ? { withholdResponseBodies: withhold } : {}),
      request: (request) =>
        request.path === "/plain"
          ? { status: 200, body: { fine: true } }
          : new Response(JSON.stringify({ xored }), {
              status: request.path === "/reflect" ? 200 : 400,
              headers: { "content-type": "application/json", "x-served-by": "reflector" },
            }),
    });
    const client = await connect(createMcpHandler(factory));
    const result = await client.callTool({ name: "execute", arguments: { code: PROGRAM } });
    await client.close();
    return text(result).replaceAll("|", "");
  };

  it("without the switch, a keyed transform of the credential is a limit redaction cannot read", async () => {
    expect(await run()).toContain(ECHO_SECRET);
  });

  it("with it, the named operations' bodies never reach the program (2xx and errors); others do", async () => {
    const output = await run(["reflect", "reflectError"]);
    expect(output).not.toContain(ECHO_SECRET);
    expect(output).toContain('"status":200');
    expect(output).toContain('"errorStatus":400');
    expect(output).toContain('"header":"reflector"');
    expect(output).toContain('response body withheld: operation \\"reflect\\"');
    expect(output).toContain('"plain":{"fine":true}');
  });
});

it("refuses an operation id the spec does not declare, naming it", () => {
  const make = () =>
    openApiMcpServer({
      spec: SPEC,
      executor: undefined as never,
      request: () => ({ status: 200 }),
      withholdResponseBodies: ["reflect", "refelct"],
    });
  expect(make).toThrow(CodeModeError);
  expect(make).toThrow(/withholdResponseBodies names "refelct"/);
});
