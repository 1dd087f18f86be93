// Done-when of issue #13, against a real `npm start` with approvals, an API key, a credential
// for the API and one for an upstream MCP server: hostile programs cannot make the server stop
// answering other clients for more than about a second, see a configured credential, send a
// request that was not approved as shown, or reach a path outside the spec. A poller watches
// /health every 100 ms for the whole run and the longest gap is checked at the end.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createHash } from "node:crypto";
import { request } from "node:http";
import { connect as netConnect } from "node:net";
import { z } from "zod";
import { ECHOES, startHostileApi, SPEC_PATHS } from "./support/hostile-api.mjs";
import { json, mcpUpstream } from "./support/mcp-upstream.mjs";
import { text } from "./support/programs.mjs";
import { check, withServer } from "./support/server.mjs";

const API_SECRET = `api-canary-${crypto.randomUUID()}`;
const MCP_SECRET = `mcp-canary-${crypto.randomUUID()}`;
const KEY = `e2e-api-key-${crypto.randomUUID()}`;
const sha = (/** @type {string} */ t) => createHash("sha256").update(t).digest("hex");

// Hashes every word the program saw: a hash the redactor cannot recognize, so a result without
// the secret's hash proves the secret never entered the sandbox (not that it was cut on the way out).
const HASH_WORDS = `const hashWords = async (all) => {
  const words = [...new Set(all.split(/[^A-Za-z0-9-]+/).filter((w) => w.length > 20))];
  const hex = async (w) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(w)))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return Promise.all(words.map(hex));
};`;

/**
 * Sends only the headers of `POST /mcp` declaring a `length`-byte body, and resolves to the
 * status the server answers within 5 s (0: none).
 * @param {string} url
 * @param {string} host
 * @param {number} length
 * @returns {Promise<number>}
 */
function headersOnly(url, host, length) {
  return new Promise((resolve) => {
    const socket = netConnect(Number(new URL(url).port), "127.0.0.1");
    let head = "";
    const done = (/** @type {number} */ status) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => done(0), 5_000);
    socket.on("connect", () =>
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
      ),
    );
    socket.on("data", (chunk) => {
      head += chunk;
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (m) done(Number(m[1]));
    });
    socket.on("error", () => done(0));
  });
}

const api = await startHostileApi();
const upstream = await mcpUpstream((server, req) => {
  const auth = req.headers.authorization ?? "";
  server.registerTool("whoami", { description: "Echoes the caller." }, async () => ({
    content: [{ type: "text", text: auth }],
    structuredContent: { auth, [auth]: true },
  }));
  server.registerTool("fail", { description: "Fails, quoting the caller." }, async () => ({
    content: [{ type: "text", text: `denied for ${auth}` }],
    isError: true,
  }));
  server.registerTool("blob", { inputSchema: { n: z.number().optional() } }, async () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "mem://auth", blob: Buffer.from(auth).toString("base64") },
      },
    ],
  }));
  void json;
}, `Bearer ${MCP_SECRET}`);

/** @param {string} url @param {string} route */
async function connect(url, route, fetchImpl = fetch, elicit = false) {
  const client = new Client(
    { name: "e2e-hostile", version: "1.0.0" },
    {
      versionNegotiation: { mode: "auto" },
      ...(elicit ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (elicit)
    client.setRequestHandler("elicitation/create", async () => ({
      action: "accept",
      content: { approve: true },
    }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${route}`), {
      fetch: fetchImpl,
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
    }),
  );
  return client;
}

try {
  await withServer(
    {
      SPEC_FILE: api.specFile,
      API_BASE_URL: api.baseUrl,
      API_TOKEN: API_SECRET,
      UPSTREAM_MCP_URL: upstream.url,
      UPSTREAM_MCP_AUTH: `Bearer ${MCP_SECRET}`,
      APPROVALS: "on",
      REQUEST_STATE_KEY: "e2e-hostile-request-state-key-0123456789abcdef",
      MCP_API_KEY: KEY,
    },
    async ({ url, output }) => {
      // Every attack runs even when an earlier one got through; all failures are reported.
      /** @type {string[]} */
      const failures = [];
      const soft = (/** @type {unknown} */ ok, /** @type {string} */ message) => {
        if (!ok) failures.push(message);
      };
      const poll = { on: true };
      let longestGap = 0;
      const poller = (async () => {
        let last = Date.now();
        while (poll.on) {
          try {
            const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(30_000) });
            if (res.ok) {
              longestGap = Math.max(longestGap, Date.now() - last);
              last = Date.now();
            }
          } catch {
            // counted as a gap
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      })();

      // 1. DNS rebinding: a request naming another host is refused.
      // (fetch cannot set Host: node:http sends it as given.)
      const rebound = await new Promise((resolve, reject) => {
        const req = request(`${url}/mcp`, { method: "POST", headers: { host: "evil.example" } });
        req
          .on("response", (res) => resolve(res.statusCode))
          .on("error", reject)
          .end("{}");
      });
      soft(rebound === 403, `Host: evil.example → ${rebound}`);

      // 1b. The front checks the Host and the key from the headers, before any byte of a body:
      // a keyless client under a name the Worker takes (`*.workers.dev`, not only a loopback
      // name) is refused at once, and so is one under a name it refuses. Only the headers are
      // sent; a front that waited for the declared 4 MiB would answer nothing in 5 s.
      for (const [host, expected] of /** @type {const} */ ([
        ["a.workers.dev", 401],
        ["evil.example", 403],
      ])) {
        const status = await headersOnly(url, host, 4 * 1_048_576);
        soft(
          status === expected,
          `keyless POST with Host: ${host} and a 4 MiB body not yet sent → ${status} (expected ${expected} from the headers)`,
        );
      }

      // 1c. A Host that is no host name or address (issue #40 review): workerd answered each a
      // bare 500 before the Worker ran; the front answers 400 invalid_host, with or without a
      // body, before the key check.
      for (const host of ["localhost:abc", "a@localhost", "a!b"]) {
        const posted = await headersOnly(url, host, 4 * 1_048_576);
        const got = await new Promise((resolve) => {
          const req = request(
            { host: "127.0.0.1", port: new URL(url).port, path: "/health", headers: { host } },
            (res) => {
              let body = "";
              res.on("data", (chunk) => (body += chunk));
              res.on("end", () => resolve(`${res.statusCode} ${body}`));
            },
          );
          req.on("error", (error) => resolve(String(error)));
          req.end();
        });
        soft(posted === 400, `POST with Host: ${host} → ${posted} (expected 400 invalid_host)`);
        soft(
          /^400 .*"invalid_host"/.test(String(got)),
          `GET /health with Host: ${host} → ${String(got).slice(0, 200)} (expected 400 invalid_host)`,
        );
      }

      const mcp = await connect(url, "/mcp");
      // A thrown client error (e.g. an approval this client cannot answer) counts as a refusal.
      // The supervisor answers a request cut off by a runtime restart with "…; retry" (its
      // documented contract): such a call is retried once, and the restart is reported, so a
      // rare local workerd crash neither hides nor fails the containment checks.
      const call = (/** @type {string} */ code, /** @type {typeof mcp} */ client) =>
        client
          .callTool({ name: "execute", arguments: { code } })
          .catch((error) => ({ isError: true, content: [{ type: "text", text: String(error) }] }));
      const run = async (/** @type {string} */ code, client = mcp) => {
        const first = await call(code, client);
        if (!first.isError || !/the runtime was restarted because .*; retry/.test(text(first)))
          return first;
        console.log(`e2e hostile: ${text(first).slice(0, 160)} — retried once`);
        return call(code, client);
      };

      // 2. The host bridge's stub through a prototype getter, then 30 MB log floods through it.
      const grabbed = await run(`async () => {
        let stub;
        Object.defineProperty(Object.prototype, "call", { configurable: true, get() { if (!stub && this !== Object.prototype) stub = this; return undefined; } });
        try { await codemode.request({ method: "GET", path: "/items" }); } catch {}
        delete Object.prototype.call;
        if (!stub) return "no stub";
        const big = "x".repeat(30 * 1024 * 1024);
        const out = [];
        for (let i = 0; i < 8; i++) {
          try { out.push(typeof (await stub.call("codemode", "request", "[{}]", [{ level: "log", text: big }]))); }
          catch (e) { out.push(String(e && e.message).slice(0, 80)); }
        }
        return out;
      }`);
      soft(
        !text(grabbed).includes('"object"'),
        `the stub accepted 30 MB of logs: ${text(grabbed).slice(0, 200)}`,
      );
      soft(
        JSON.stringify(grabbed).length < 256 * 1024,
        `stub attack result is ${JSON.stringify(grabbed).length} bytes`,
      );

      // 3. Credentials: echoed in every encoding, then hashed word by word inside the sandbox.
      const echoed = await run(`async () => {
        ${HASH_WORDS}
        const seen = [];
        const dec = (b, e) => new TextDecoder(e).decode(b);
        for (const as of ["json", "utf16", "binary", "header", "text"]) {
          try {
            const r = await codemode.request({ method: "GET", path: "/echo", query: { as }, response: "full" });
            seen.push(Object.keys(r.headers).join(" "), Object.values(r.headers).join(" "));
            const b = r.body;
            seen.push(b instanceof Uint8Array ? dec(b, "utf-8") + " " + dec(b, "utf-16le") : typeof b === "string" ? b : JSON.stringify(b));
          } catch (e) { seen.push(String(e && e.message)); }
        }
        return hashWords(seen.join(" "));
      }`);
      soft(!echoed.isError, `echo program → ${text(echoed).slice(0, 300)}`);
      soft(!text(echoed).includes(sha(API_SECRET)), "the API credential entered the sandbox");

      // 3b. The encodings the redactor decodes since #29 (HTML references, percent-encoded twice,
      // base32, quoted-printable, UTF-32, \xHH escapes, base64 of the reversed token, two-layer
      // compositions), each read with response: "full". The program sends out all it got with a
      // "|" between characters (so the final result redaction cannot hide a leak), and each
      // echo's own decoder is applied to it here: the credential must come back from none.
      const SEPARATOR = "\n#####\n";
      const forms = await run(`async () => {
        const out = [];
        for (let i = 0; i < ${ECHOES.length}; i++) {
          let seen;
          try {
            const r = await codemode.request({ method: "GET", path: "/echo-forms/" + i, response: "full" });
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
        return out.join(${JSON.stringify(SEPARATOR)});
      }`);
      soft(!forms.isError, `echo-forms program → ${text(forms).slice(0, 300)}`);
      const holds = (/** @type {string} */ t) => t.toLowerCase().includes(API_SECRET.toLowerCase());
      const asText = (/** @type {string | Uint8Array} */ b) =>
        typeof b === "string" ? b : String.fromCharCode(...b);
      /** @type {string[]} */
      const received = [];
      for (const dump of text(forms).split(SEPARATOR)) {
        const index = /^@(\d+)@/.exec(dump)?.[1];
        if (index !== undefined)
          received[Number(index)] = dump.slice(index.length + 2).replaceAll("|", "");
      }
      ECHOES.forEach((echo, i) => {
        // The decoder works: on the echo as sent it gives the credential back.
        soft(holds(echo.recover(asText(echo.body(API_SECRET)))), `echo "${echo.name}": no decoder`);
        const seen = received[i];
        if (seen === undefined) return soft(false, `echo "${echo.name}": no answer in the output`);
        soft(
          !holds(seen) && !holds(echo.recover(seen)),
          `echo "${echo.name}": the program recovered the credential`,
        );
        // It did arrive: cut out (a marker, also in UTF-16/32 layout) or the body withheld.
        soft(
          /\[REDACTED\]|\[\0+R|withheld/.test(seen),
          `echo "${echo.name}": no sign of redaction in ${JSON.stringify(seen.slice(0, 120))}`,
        );
      });
      const echoCalls = api.seen.filter((r) => r.url.startsWith("/echo-forms/"));
      soft(
        echoCalls.length === ECHOES.length &&
          echoCalls.every((r) => r.authorization === `Bearer ${API_SECRET}`),
        `echo-forms: the API saw ${echoCalls.length} calls with the credential`,
      );

      const code = await connect(url, "/mcp/code");
      const fromMcp = await code.callTool({
        name: "code",
        arguments: {
          code: `async () => {
            ${HASH_WORDS}
            const seen = [];
            for (const call of [() => codemode.whoami({}), () => codemode.fail({}), () => codemode.blob({})]) {
              try { const r = await call(); seen.push(JSON.stringify(r), ...[].concat(r).map((x) => x && x.resource && x.resource.blob ? atob(x.resource.blob) : "")); }
              catch (e) { seen.push(String(e && e.message)); }
            }
            return hashWords(seen.join(" "));
          }`,
        },
      });
      soft(!fromMcp.isError, `code program → ${text(fromMcp).slice(0, 300)}`);
      soft(upstream.seen.length > 0, "the upstream MCP server was never called");
      soft(!text(fromMcp).includes(sha(MCP_SECRET)), "the upstream credential entered the sandbox");

      // 4. Paths outside the spec: refused before anything is sent.
      const before = api.seen.length;
      for (const path of [
        "/items/..%2F..%2Fadmin",
        "/items/..\\\\..\\\\admin",
        "/items/%2e%2e",
        "/items/a?admin=1",
        "/items/a#x",
      ]) {
        const refused = await run(
          `async () => (await codemode.request({ method: "GET", path: ${JSON.stringify(path)} })).status`,
        );
        soft(refused.isError, `GET ${path} was not refused: ${text(refused)}`);
      }
      const viaParams = await run(
        `async () => (await codemode.request({ method: "GET", path: "/items/{id}", params: { id: "../admin" } })).status`,
      );
      soft(viaParams.isError, `params ../admin was not refused: ${text(viaParams)}`);
      soft(
        api.seen.length === before,
        `requests outside the spec were sent: ${JSON.stringify(api.seen.slice(before))}`,
      );

      /** @type {{ headers: Headers, body: string } | undefined} */
      let round;
      const recording = async (/** @type {any} */ input, /** @type {any} */ init) => {
        if (typeof init?.body === "string" && init.body.includes("inputResponses"))
          round = { headers: new Headers(init.headers), body: init.body };
        return fetch(input, init);
      };
      const approver = await connect(url, "/mcp", recording, true);
      // 5. A catastrophic spec pattern applied to a model value does not stall the host.
      const pattern = await run(
        `async () => { try { await codemode.request({ method: "POST", path: "/items", body: { name: "a".repeat(40) + "!" } }); return "sent"; } catch (e) { return e.name; } }`,
        approver,
      );
      soft(text(pattern).length > 0, `pattern program → ${text(pattern)}`);

      // 6. Approvals: one accepted DELETE is sent once; replaying the accepted round sends nothing.
      const deletes = () => api.seen.filter((r) => r.method === "DELETE").length;
      const approved = await approver.callTool({
        name: "execute",
        arguments: {
          code: `async () => (await codemode.request({ method: "DELETE", path: "/items/42", response: "full" })).status`,
        },
      });
      soft(
        text(approved) === "204" && deletes() === 1,
        `approved DELETE → ${text(approved)}, sent ${deletes()}×`,
      );
      soft(round !== undefined, "no MRTR round was recorded");
      const replayed = round;
      if (replayed)
        for (let i = 0; i < 3; i++)
          await (
            await fetch(`${url}/mcp`, {
              method: "POST",
              headers: replayed.headers,
              body: replayed.body,
            })
          ).text();
      soft(deletes() === 1, `replaying the accepted round sent the DELETE ${deletes()} times`);

      poll.on = false;
      await poller;
      soft(longestGap <= 2_000, `other clients waited up to ${longestGap} ms`);
      soft(
        !output().includes(API_SECRET) && !output().includes(MCP_SECRET),
        "npm start's output shows a credential",
      );
      const outside = api.seen.filter((r) => !SPEC_PATHS.test(r.url));
      soft(outside.length === 0, `requests outside the spec's paths: ${JSON.stringify(outside)}`);
      if (process.env.E2E_DEBUG)
        console.log(
          JSON.stringify({ grabbed, echoed, forms, fromMcp, pattern, approved, seen: api.seen }),
        );
      check(failures.length === 0, `\n- ${failures.join("\n- ")}`);
      await mcp.close();
      await code.close();
      await approver.close();
      console.log(
        `e2e hostile: stub grab, credential echoes (${ECHOES.length} encoded forms too), paths, pattern and approval replay contained; longest /health gap ${longestGap} ms — ok`,
      );
    },
  );
} finally {
  api.close();
  upstream.close();
}
