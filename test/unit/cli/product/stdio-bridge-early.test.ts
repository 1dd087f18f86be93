/**
 * The `--stdio` bridge's early `initialize` answer (cli/product/stdio-bridge.mjs, issue #43): with
 * the host's answer kept from the last launch (cli/kept/early-answers.mjs), the client's
 * `initialize` is answered before the host is ready; the host still gets that `initialize` first
 * once ready, its answer is compared and kept, and no request gets two answers. The bridge runs
 * in this process over in-memory streams; the host is a plain Node HTTP server answering as the
 * front does. Nothing is timed: "not yet" is checked after the streams have had their turns.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { runStdioBridge } from "../../../../cli/product/stdio-bridge.mjs";
import { earlyAnswersOf } from "../../../../cli/kept/early-answers.mjs";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";

const scratch = scratchFolders("stdio-bridge-early-");
/** The version the SDK client asks for (the kept answer is per version asked). */
const VERSION = LATEST_PROTOCOL_VERSION;
const HOST_ANSWER = {
  protocolVersion: VERSION,
  capabilities: { tools: {} },
  serverInfo: { name: "code-mode-api", version: "0.1.0" },
};

/** Every stand-in host and bridge input of a test, ended after it. */
const servers: Server[] = [];
const inputs: PassThrough[] = [];
afterEach(async () => {
  for (const input of inputs.splice(0)) input.end();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Lets the streams and the bridge's callbacks have their turns (no clock). */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** Waits for `check` to hold, giving up (a failure, never a hang) after many turns. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 50_000; i++) {
    if (check()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`never happened: ${what}`);
}

/** A stand-in host: records the methods it got, in order; `answer` gives its initialize result. */
async function host(answer: (asked: string) => unknown = () => HOST_ANSWER) {
  const got: string[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      if (req.method !== "POST") return res.writeHead(405).end();
      const message = JSON.parse(text);
      got.push(message.method);
      const reply = (result: unknown) =>
        res
          .writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      if (message.method === "initialize") return reply(answer(message.params.protocolVersion));
      if (message.method === "tools/list")
        return reply({ tools: [{ name: "search", inputSchema: { type: "object" } }] });
      return res.writeHead(202).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, got };
}

/** A bridge over in-memory streams: what it wrote, what it logged, and the `ready` to give. */
function bridge(url: string, options: Record<string, unknown> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  inputs.push(input);
  const out: JSONRPCMessage[] = [];
  const logged: string[] = [];
  const kept: Record<string, unknown>[] = [];
  let buffered = "";
  output.on("data", (d) => {
    buffered += d;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) out.push(JSON.parse(line));
  });
  let makeReady = () => {};
  const ready = new Promise<void>((r) => (makeReady = r));
  const running = runStdioBridge({
    url,
    ready,
    log: (line: string) => logged.push(line),
    onClose: () => {},
    keep: (answers: Record<string, unknown>) => kept.push(answers),
    input,
    output,
    ...options,
  });
  const send = (message: unknown) => input.write(`${JSON.stringify(message)}\n`);
  const answersTo = (id: number) => out.filter((m) => "id" in m && m.id === id);
  return { input, out, logged, kept, ready: makeReady, running, send, answersTo };
}

/**
 * A bridge that answers `initialize` from the kept answer, and its launch's refusal channel:
 * `give` refuses the launch; `answered` says whether the bridge answered the client with it.
 * @param url - the host's MCP URL
 */
function refusableBridge(url: string) {
  let give = (_text: string) => {};
  let answered = false;
  const b = bridge(url, {
    kept: { [VERSION]: HOST_ANSWER },
    refusal: {
      text: new Promise<string>((r) => (give = r)),
      answered: () => (answered = true),
    },
  });
  return { b, give: (text: string) => give(text), answered: () => answered };
}

const initialize = (id = 1, protocolVersion = VERSION) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "desktop", version: "1" } },
});

/** An SDK client transport over the bridge's in-memory streams. */
class StreamTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private buffer = new ReadBuffer();
  constructor(
    private input: PassThrough,
    private output: PassThrough,
  ) {}
  async start() {
    this.output.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let m = this.buffer.readMessage(); m; m = this.buffer.readMessage()) this.onmessage?.(m);
    });
  }
  async send(message: JSONRPCMessage) {
    this.input.write(serializeMessage(message));
  }
  async close() {
    this.onclose?.();
  }
}

describe("the --stdio bridge's early initialize answer", () => {
  it("answers initialize before the host is ready with what the last launch's host answered", async () => {
    const root = scratch.folder();
    const spec = join(root, "openapi.json");
    writeFileSync(spec, "{}");
    const worker = join(root, "worker.js");
    writeFileSync(worker, "export default {}");
    const env = {
      XDG_CACHE_HOME: join(root, "cache"),
      XDG_CONFIG_HOME: join(root, "config"),
      SPEC_FILE: spec,
    };
    const of = () =>
      earlyAnswersOf({ env, route: "/mcp", workerFiles: [worker], isSetting: () => false });

    // Launch 1: nothing kept; the host's answer passes through and is kept.
    const first = await host();
    const launch1 = of();
    expect(launch1.kept).toBeUndefined();
    const b1 = bridge(first.url, { keep: launch1.keep });
    b1.send(initialize());
    await turns();
    expect(b1.answersTo(1)).toEqual([]);
    b1.ready();
    await until(() => b1.answersTo(1).length === 1, "launch 1's answer");
    const golden = (b1.answersTo(1)[0] as { result: unknown }).result;
    expect(golden).toEqual(HOST_ANSWER);
    await turns();

    // Launch 2: answered from what launch 1 kept, its host not ready (a real SDK client).
    const second = await host();
    const launch2 = of();
    expect(launch2.kept).toEqual({ [VERSION]: HOST_ANSWER });
    const input = new PassThrough();
    const output = new PassThrough();
    inputs.push(input);
    void runStdioBridge({
      url: second.url,
      ready: new Promise<void>(() => {}),
      log: () => {},
      onClose: () => {},
      kept: launch2.kept,
      keep: launch2.keep,
      input,
      output,
    });
    const client = new Client({ name: "desktop", version: "1" });
    await client.connect(new StreamTransport(input, output));
    expect(client.getServerVersion()).toEqual(HOST_ANSWER.serverInfo);
    expect(client.getServerCapabilities()).toEqual(HOST_ANSWER.capabilities);
    // The host heard nothing yet: the answer came from the kept one.
    expect(second.got).toEqual([]);
  });

  it("holds initialize as before when no answer is kept for the version asked", async () => {
    const h = await host();
    const b = bridge(h.url, { kept: { "2024-11-05": { ...HOST_ANSWER, protocolVersion: "x" } } });
    b.send(initialize(1, VERSION));
    await turns();
    expect(b.out).toEqual([]);
    expect(h.got).toEqual([]);
    b.ready();
    await until(() => b.answersTo(1).length === 1, "the host's answer");
    expect(b.answersTo(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: HOST_ANSWER }]);
    // Kept beside the other version, for the next launch.
    expect(b.kept.at(-1)).toEqual({
      "2024-11-05": { ...HOST_ANSWER, protocolVersion: "x" },
      [VERSION]: HOST_ANSWER,
    });
  });

  it("sends the host the client's initialize first once ready, then the rest in order, one answer each", async () => {
    const h = await host();
    const b = bridge(h.url, { kept: { [VERSION]: HOST_ANSWER } });
    b.send(initialize());
    b.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    b.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    await until(() => b.answersTo(1).length === 1, "the early answer");
    await turns();
    expect(b.out).toEqual([{ jsonrpc: "2.0", id: 1, result: HOST_ANSWER }]);
    expect(h.got).toEqual([]);
    b.ready();
    await until(() => b.answersTo(2).length === 1, "tools/list's answer");
    await turns();
    expect(h.got).toEqual(["initialize", "notifications/initialized", "tools/list"]);
    expect(b.answersTo(1)).toHaveLength(1);
    expect(b.logged).toEqual([]);
    // The same answer: nothing new to keep.
    expect(b.kept).toEqual([]);
  });

  it("sends what the client sent after an early answer with the version the host negotiated", async () => {
    // The host answers initialize by an event stream (as the SDK's server transport does), its
    // event coming only once another request arrives or after many turns: a bridge that sent the
    // held messages as soon as the stream opened sent them without the negotiated version.
    const versions: [string, string | undefined][] = [];
    let release = () => {};
    const server = createServer((req, res) => {
      let text = "";
      req.on("data", (c) => (text += c));
      req.on("end", () => {
        if (req.method !== "POST") return res.writeHead(405).end();
        const message = JSON.parse(text);
        release();
        const version = req.headers["mcp-protocol-version"];
        versions.push([message.method, typeof version === "string" ? version : undefined]);
        if (message.method === "initialize") {
          res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s1" });
          let sent = false;
          const event = () => {
            if (sent) return;
            sent = true;
            const answer = { jsonrpc: "2.0", id: message.id, result: HOST_ANSWER };
            res.end(`event: message\ndata: ${JSON.stringify(answer)}\n\n`);
          };
          release = event;
          void turns(2000).then(event);
          return;
        }
        if (message.method === "tools/list")
          return res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { tools: [] } }));
        return res.writeHead(202).end();
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const b = bridge(url, { kept: { [VERSION]: HOST_ANSWER } });
    b.send(initialize());
    await until(() => b.answersTo(1).length === 1, "the early answer");
    b.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    b.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    await turns();
    b.ready();
    await until(() => b.answersTo(2).length === 1, "tools/list's answer");
    expect(versions).toEqual([
      ["initialize", undefined],
      ["notifications/initialized", VERSION],
      ["tools/list", VERSION],
    ]);
    expect(b.answersTo(1)).toHaveLength(1);
  });

  it("says nothing of the initialize answered early when the client left before the host was up", async () => {
    // A desktop client answered early may close stdin at once: the held initialize is cut by
    // that close, which is no failure worth a line (issue #32: a normal close prints nothing).
    const h = await host();
    let gone = false;
    const b = bridge(h.url, { kept: { [VERSION]: HOST_ANSWER }, onClose: () => (gone = true) });
    b.send(initialize());
    await until(() => b.answersTo(1).length === 1, "the early answer");
    b.input.end();
    await until(() => gone, "the close");
    b.ready();
    await b.running;
    await turns();
    expect(b.logged).toEqual([]);
  });

  it("logs and keeps a host answer that differs, and never answers initialize twice", async () => {
    const newer = { ...HOST_ANSWER, serverInfo: { name: "code-mode-api", version: "0.2.0" } };
    const h = await host(() => newer);
    const b = bridge(h.url, { kept: { [VERSION]: HOST_ANSWER } });
    b.send(initialize());
    b.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    await until(() => b.answersTo(1).length === 1, "the early answer");
    b.ready();
    await until(() => b.answersTo(2).length === 1, "tools/list's answer");
    await turns();
    expect(b.answersTo(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: HOST_ANSWER }]);
    expect(b.logged.join("\n")).toMatch(/initialize answer differs from the one given early/);
    expect(b.kept).toEqual([{ [VERSION]: newer }]);
  });

  it("answers the next request with a refused launch's message, once initialize was answered early", async () => {
    const h = await host();
    const { b, give, answered } = refusableBridge(h.url);
    b.send(initialize());
    await until(() => b.answersTo(1).length === 1, "the early answer");
    b.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    b.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    await turns();
    give("code-mode-mcp: the configuration is invalid, nothing was started.\n- PORT: in use");
    await until(answered, "the refusal answered");
    expect(b.answersTo(2)).toEqual([
      {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32603, message: expect.stringContaining("the configuration is invalid") },
      },
    ]);
    expect(b.answersTo(1)).toHaveLength(1);
    expect(h.got).toEqual([]);
  });

  it("waits for the next request when a refusal comes with none held", async () => {
    const h = await host();
    const { b, give, answered } = refusableBridge(h.url);
    b.send(initialize());
    await until(() => b.answersTo(1).length === 1, "the early answer");
    give("refused: no such spec");
    await turns();
    expect(answered()).toBe(false);
    b.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    await until(answered, "the refusal answered");
    expect(b.answersTo(2)).toEqual([
      { jsonrpc: "2.0", id: 2, error: { code: -32603, message: "refused: no such spec" } },
    ]);
  });
});
