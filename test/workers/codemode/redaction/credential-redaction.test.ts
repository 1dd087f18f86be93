// Credentials never reach the sandbox or a result: configured secrets, echoed credentials, transformed copies.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  openApiMcpServer,
  type OpenApiMcpServerOptions,
} from "../../../../src/codemode/openapi-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import type { ApiRequestHandler } from "../../../../src/codemode/request/api-request";
import { CodeModeError, createMcpHandler } from "../../../../src/index";
import { CANARY, cloudflare } from "../cloudflare";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";
import { EXFILTRATE, leakedForms } from "./leak-probe";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
  const reversed = (s: string) => [...s].toReversed().join("");

  async function call(
    tool: "search" | "execute",
    code: string,
    options: Partial<OpenApiMcpServerOptions> = {},
  ) {
    const factory = openApiMcpServer({
      spec: cloudflare,
      executor,
      request: () => ({ status: 200, body: { ok: true } }),
      secrets: [CANARY],
      ...options,
    });
    const client = await connect(createMcpHandler(factory));
    const result = await client.callTool({ name: tool, arguments: { code } });
    await client.close();
    return text(result);
  }

  // Programs return secrets reversed: only a secret that never entered the sandbox stays hidden
  // (the final redaction of results would catch the plain text, not a transformed copy).
  const CAUGHT = `async () => {
  try { await codemode.request({ method: "GET", path: "/zones" }); return "no error"; }
  catch (e) { return reversed(e.name + ": " + e.message); }
}`.replace("reversed(", '((s) => s.split("").reverse().join(""))(');

  describe("configured secrets never reach the sandbox or a result", () => {
    it("are replaced in an error the request callback throws", async () => {
      const out = await call("execute", CAUGHT, {
        request: () => {
          throw new TypeError(`fetch https://api.example/zones?api_key=${CANARY} failed`);
        },
      });
      expect(out).toContain(
        reversed("TypeError: fetch https://api.example/zones?api_key=[REDACTED]"),
      );
      expect(out).not.toContain(reversed(CANARY));
    });

    it("are replaced in an error an async request callback rejects with", async () => {
      const out = await call("execute", CAUGHT, {
        request: async () => {
          throw new Error(`401: token ${CANARY} is expired`);
        },
      });
      expect(out).toContain(reversed("Error: 401: token [REDACTED] is expired"));
      expect(out).not.toContain(reversed(CANARY));
    });

    it("are replaced in a refusal that quotes the spec", async () => {
      const spec = {
        openapi: "3.0.3",
        info: { title: "Keys", version: "1" },
        paths: {
          "/things": {
            get: {
              operationId: "listThings",
              parameters: [
                {
                  name: "mode",
                  in: "query",
                  required: true,
                  schema: { type: "string", enum: [`only-${CANARY}`], pattern: `^only-${CANARY}$` },
                },
              ],
              responses: { "200": { description: "ok" } },
            },
          },
        },
      };
      const out = await call(
        "execute",
        EXFILTRATE.replace(
          "CALL",
          'await codemode.request({ method: "GET", path: "/things", query: { mode: "guess" } })',
        ),
        { spec },
      );
      expect(out).toContain("R|e|q|u|e|s|t|R|e|f|u|s|e|d|E|r|r|o|r");
      expect(leakedForms(out, [CANARY])).toEqual([]);
    });

    it("are removed from the spec the sandbox searches", async () => {
      const spec = {
        openapi: "3.0.3",
        info: { title: "Keys", version: "1" },
        paths: {
          "/things": {
            get: {
              operationId: "listThings",
              description: `Example: curl -H "Authorization: Bearer ${CANARY}" /things`,
              responses: { "200": { description: "ok" } },
            },
          },
        },
      };
      const out = await call(
        "search",
        `async () => ((s) => s.split("").reverse().join(""))(JSON.stringify(await codemode.spec()))`,
        { spec },
      );
      expect(out).toContain(reversed("Bearer [REDACTED]"));
      expect(out).not.toContain(reversed(CANARY));
    });

    it("are replaced in results as a last line of defence", async () => {
      const [head, tail] = [CANARY.slice(0, 5), CANARY.slice(5)];
      const out = await call(
        "execute",
        `async () => { console.log("${head}" + "${tail}"); return "${head}" + "${tail}"; }`,
      );
      expect(out).toContain("[REDACTED]");
      expect(out).not.toContain(CANARY);
    });
  });

  const utf16 = (s: string, bigEndian = false) => {
    const out = new Uint8Array(s.length * 2);
    for (let i = 0; i < s.length; i++) {
      const [lo, hi] = [s.charCodeAt(i) & 0xff, s.charCodeAt(i) >> 8];
      out.set(bigEndian ? [hi, lo] : [lo, hi], i * 2);
    }
    return out;
  };
  const utf8 = (s: string) => new TextEncoder().encode(s);
  const escapeAll = (s: string) =>
    [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  const concat = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  };

  // Upstreams that echo the credential through every channel of a response.
  const ECHOES: [string, ApiRequestHandler][] = [
    [
      "JSON whose strings and keys hide it in \\u escapes",
      () =>
        new Response(`{"echo":"${escapeAll(CANARY)}","${escapeAll(CANARY)}":1,"n":"a\\/b"}`, {
          headers: { "content-type": "application/json" },
        }),
    ],
    [
      "a UTF-16LE text body",
      () =>
        new Response(utf16(`token=${CANARY}`), {
          headers: { "content-type": "text/plain; charset=utf-16le" },
        }),
    ],
    [
      "a UTF-16BE JSON body declared as UTF-8",
      () =>
        new Response(utf16(`{"token":"${CANARY}"}`, true), {
          headers: { "content-type": "application/json; charset=utf-8" },
        }),
    ],
    [
      "an ASCII body declared as UTF-16",
      () =>
        new Response(`token=${CANARY}`, {
          headers: { "content-type": "text/plain; charset=utf-16le" },
        }),
    ],
    [
      "a binary body (UTF-8, UTF-16LE at an odd offset, UTF-16BE)",
      () =>
        new Response(
          concat(utf8(CANARY), new Uint8Array([7]), utf16(CANARY), utf16(CANARY, true)),
          {
            headers: { "content-type": "application/octet-stream" },
          },
        ),
    ],
    [
      // 1 KiB and more crosses as bytes beside the wire text (sandbox/codec.ts), not as base64.
      "a large binary body (crossing beside the text)",
      () =>
        new Response(
          concat(
            new Uint8Array(3_000).map((_, i) => (i * 13) & 127),
            utf8(CANARY),
            new Uint8Array(3_000).fill(7),
            utf16(CANARY),
          ),
          { headers: { "content-type": "application/octet-stream" } },
        ),
    ],
    [
      "a response header name and value",
      () =>
        new Response("{}", {
          headers: { "content-type": "application/json", [`x-echo-${CANARY}`]: `v=${CANARY}` },
        }),
    ],
    ["a status text", () => new Response("{}", { status: 401, statusText: `bad ${CANARY}` })],
    [
      "a plain answer with bytes, a Map, a Set and a header name",
      () => ({
        status: 200,
        headers: { [`x-${CANARY}`]: "1" },
        body: {
          bytes: utf16(CANARY),
          map: new Map([[CANARY, { [CANARY]: CANARY }]]),
          set: new Set([`id ${CANARY}`]),
        },
      }),
    ],
  ];

  describe("an echoed credential never enters the sandbox, on any channel of a response", () => {
    // Both presentations: the body (or an ApiError's fields and message) and the full answer.
    it.each(ECHOES)("through %s", async (_channel, request) => {
      for (const mode of ["", ', response: "full"']) {
        const out = await call(
          "execute",
          EXFILTRATE.replace(
            "CALL",
            `await codemode.request({ method: "GET", path: "/zones"${mode} })`,
          ),
          { request },
        );
        expect(out).toContain("probe ran");
        expect(leakedForms(out, [CANARY])).toEqual([]);
      }
    });

    it("redacts inside JSON without breaking it: the body stays parsed", async () => {
      const out = await call(
        "execute",
        'async () => await codemode.request({ method: "GET", path: "/zones" })',
        { request: ECHOES[0]![1] },
      );
      expect(JSON.parse(out)).toEqual({ echo: "[REDACTED]", "[REDACTED]": 1, n: "a/b" });
    });
  });

  describe("the last line: transformed copies a program makes are redacted from results, logs and errors", () => {
    // The program builds the secret itself (as if it had got it): each form is then returned,
    // logged and thrown.
    const FORMS = `const s = ["${CANARY.slice(0, 9)}", "${CANARY.slice(9)}"].join("");
    const bytes = new TextEncoder().encode(s);
    const b64 = (prefix) => btoa(prefix + String.fromCharCode(...bytes));
    const forms = [s.toUpperCase(), [...s].reverse().join(""), encodeURIComponent("&" + s),
      [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(""),
      b64(""), b64("a"), b64("ab"), b64("ab").replace(/\\+/g, "-").replace(/\\//g, "_"), JSON.stringify(s)];`;
    it.each([
      ["returned", `${FORMS} return forms;`],
      ["logged", `${FORMS} for (const f of forms) console.log(f); return "logged";`],
      ["thrown", `${FORMS} throw new Error(forms.join(" "));`],
    ])("when %s", async (_how, body) => {
      const out = await call("execute", `async () => { ${body} }`);
      const bytes = utf8(CANARY);
      const b64 = (prefix: string) => btoa(prefix + String.fromCharCode(...bytes));
      for (const form of [
        CANARY.toUpperCase(),
        [...CANARY].toReversed().join(""),
        [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(""),
        b64("").slice(0, 30),
        b64("a").slice(4, 34),
        b64("ab").slice(4, 34),
      ])
        expect(out.toLowerCase()).not.toContain(form.toLowerCase());
      expect(out).toContain("[REDACTED]");
    });
  });

  describe("redaction never touches the structure of a result or the spec", () => {
    it("search still works with a secret equal to a key of the spec (operations)", async () => {
      const out = await call(
        "search",
        `async () => Object.keys((await codemode.spec()).paths).length`,
        { secrets: ["operations"] },
      );
      const paths = new Set(cloudflare.compact.operations.map((op) => op.path));
      expect(Number(out)).toBe(paths.size);
    });

    it("refuses a secret too short to redact safely, naming the rule", () => {
      const build = () =>
        openApiMcpServer({
          spec: cloudflare,
          executor,
          request: () => ({ status: 204 }),
          secrets: ["x"],
        });
      expect(build).toThrow(CodeModeError);
      expect(build).toThrow(/at least 8 characters/);
    });
  });
});
