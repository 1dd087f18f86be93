/**
 * The answers the front holds whole count in its memory budget (cli/local-server/front/
 * body-budget.mjs, exchange.mjs; issue #40 "a front with a memory budget"). The front holds a
 * JSON answer until its end so that a runtime lost mid-answer still gets its client a clear
 * error; a client that never reads kept each answer it asked for (up to 4 MiB) in the front's
 * memory, outside any bound. The system's socket buffers take a few MiB per connection, but a
 * client that sends many requests at once on one connection (HTTP/1.1 pipelining: Node's server
 * starts each one it has parsed) had every answer but the first waiting whole in the front's
 * memory: a few KiB sent could pin ~300 × 4 MiB. Now held answers take at most half the budget,
 * until their client's connection took the last byte; past that an answer streams, read from
 * the runtime only as fast as its client reads. Real sockets; the runtime is a Node server on a
 * Unix socket answering each request 1.5 MiB of JSON.
 */
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ANSWER_SHARE } from "../../../cli/local-server/front/body-budget.mjs";
import { createFront } from "../../../cli/local-server/front/front.mjs";
import { listenUnix } from "../../helpers/unix-socket.js";

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const ANSWER = Buffer.from(
  JSON.stringify({ jsonrpc: "2.0", id: 1, result: "x".repeat(1_572_864) }),
);
const BUDGET = 8 * 1_048_576;
const CLIENTS = 12;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A runtime stand-in on a Unix socket served by `handler`, and a front with an 8 MiB budget before
 * it; `unwritten()` is every answer's bytes Node holds, not yet written to the system (a
 * pipelined request's answer waits whole in its response until the ones before it are out).
 */
async function frontBefore(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const runtime: Server = createServer(handler);
  const path = await listenUnix(runtime);
  const front = createFront({
    target: async () => ({ name: "runtime 1", socket: path, killedBecause: undefined }) as never,
    bodyBudgetBytes: BUDGET,
  });
  const answers = new Set<ServerResponse>();
  front.server.on("request", (_req, res) => answers.add(res));
  await new Promise<void>((r) => front.server.listen(0, "127.0.0.1", () => r()));
  closers.push(() => {
    front.server.closeAllConnections();
    front.server.close();
    runtime.closeAllConnections();
    runtime.close();
  });
  return {
    port: (front.server.address() as AddressInfo).port,
    front,
    unwritten: () => [...answers].reduce((sum, res) => sum + res.writableLength, 0),
  };
}

/** A front before a runtime answering ANSWER to every request it read whole. */
async function setUp() {
  let served = 0;
  const set = await frontBefore((req, res) => {
    req.resume();
    req.on("end", () => {
      served++;
      res.writeHead(200, { "content-type": "application/json", "content-length": ANSWER.length });
      res.end(ANSWER);
    });
  });
  return { ...set, served: () => served };
}

/** A client that sends `count` MCP requests at once on one connection and never reads a byte. */
function neverReading(port: number, count: number): Socket {
  const socket = connect(port, "127.0.0.1");
  socket.pause();
  const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}';
  const one = `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  socket.write(one.repeat(count));
  closers.push(() => socket.destroy());
  return socket;
}

describe("the answers the front holds (issue #40)", () => {
  it("holds at most its share of the budget for clients that never read; the rest waits in the runtime", async () => {
    const { port, front, served, unwritten } = await setUp();
    const clients = [neverReading(port, CLIENTS / 2), neverReading(port, CLIENTS / 2)];
    for (let i = 0; i < 200 && served() < CLIENTS; i++) await sleep(25);
    expect(served()).toBe(CLIENTS);
    await sleep(300);
    const share = BUDGET * ANSWER_SHARE;
    expect(front.answerBytesHeld()).toBeLessThanOrEqual(share);
    // What the front's process holds for them: the answers held whole (counted), and for each
    // streamed one at most a piece or two past Node's mark before the runtime is paused. Before,
    // every answer was held whole: ~10 × 1.5 MiB waited behind the first of each connection.
    expect(unwritten()).toBeLessThanOrEqual(share + CLIENTS * 256 * 1024);
    // A client that reads is served whole meanwhile (its answer streams: no share is left).
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/mcp",
          headers: { "content-type": "application/json" },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on("data", (c: Buffer) => parts.push(c));
          res.on("end", () => resolve(Buffer.concat(parts)));
        },
      );
      req.on("error", reject);
      req.end('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}');
    });
    expect(Buffer.compare(answer, ANSWER)).toBe(0);
    // Clients that go away give their share back.
    for (const client of clients) client.destroy();
    for (let i = 0; i < 100 && front.bodyBytesHeld() > 0; i++) await sleep(20);
    expect([front.answerBytesHeld(), front.bodyBytesHeld()]).toEqual([0, 0]);
  });
});

describe("requests pipelined on one connection (issue #40 review)", () => {
  it("give everything back when their connection closes before their turn", async () => {
    // Node emits "close" only for a connection's current response: the ones queued behind it
    // never heard their client went away, so their bodies stayed in the budget and their
    // runtime connections open, for good (pipelined-close.mjs).
    const waiting = new Set<Socket>();
    const { port, front } = await frontBefore((req) => {
      req.resume();
      waiting.add(req.socket);
      req.socket.once("close", () => waiting.delete(req.socket));
      // never answers
    });
    const client = neverReading(port, 5);
    for (let i = 0; i < 200 && waiting.size < 5; i++) await sleep(10);
    expect([waiting.size, front.inFlightCount()]).toEqual([5, 5]);
    expect(front.bodyBytesHeld()).toBeGreaterThan(0);
    client.destroy();
    for (let i = 0; i < 200 && (waiting.size > 0 || front.bodyBytesHeld() > 0); i++)
      await sleep(10);
    expect([waiting.size, front.inFlightCount(), front.bodyBytesHeld()]).toEqual([0, 0, 0]);
  });
});
