/**
 * The front's reading of a request body (cli/local-server/front/request-body.mjs) and of its
 * path (route-bodies.mjs `pathOf`), over real sockets where it matters: a body that comes whole
 * with its headers costs no timer and no place among the bodies still arriving (issue #43), one
 * that trickles is timed and can be made room of, and a plain path is read as the Worker's URL
 * parser reads it, without the parser.
 */
import { createServer, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { createBodyBudget } from "../../../../cli/local-server/front/body/budget.mjs";
import { readBody, type BodyRead } from "../../../../cli/local-server/front/request-body.mjs";
import { pathOf } from "../../../../cli/local-server/front/route-bodies.mjs";
import { testServers } from "../../../helpers/cli/test-servers.js";

const { listen } = testServers();

/** A server that reads each body with readBody; resolves each read with what `arriving` saw. */
async function reader(timeoutMs: number) {
  const reads: Promise<{ read: BodyRead; arriving: number }>[] = [];
  const budget = createBodyBudget(1_000_000);
  const server = createServer((req: IncomingMessage, res) => {
    let arriving = 0;
    reads.push(
      readBody(req, {
        maxBytes: 100_000,
        timeoutMs,
        hold: budget.hold(),
        arriving: () => (arriving++, () => {}),
      }).then((read) => {
        res.end();
        return { read, arriving };
      }),
    );
  });
  return { port: await listen(server), reads };
}

/** Writes `parts` on one connection, `gapMs` apart. */
async function sendRaw(port: number, parts: string[], gapMs = 0) {
  const socket = connect(port, "127.0.0.1");
  for (const part of parts) {
    socket.write(part);
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
  }
  return socket;
}

const HEAD = (length: number) =>
  `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${length}\r\n\r\n`;

describe("the front's body reading", () => {
  it("takes a body that came whole with its headers at once: no place among those arriving", async () => {
    const { port, reads } = await reader(10_000);
    const socket = await sendRaw(port, [HEAD(5) + "hello"]);
    await expect.poll(() => reads.length).toBe(1);
    const { read, arriving } = await (reads[0] as Promise<{ read: BodyRead; arriving: number }>);
    expect("body" in read && read.body.toString()).toBe("hello");
    expect(arriving).toBe(0);
    socket.destroy();
  });

  it("times a body that trickles, and lets a new connection take its place", async () => {
    const { port, reads } = await reader(300);
    const socket = await sendRaw(port, [HEAD(5), "he"], 20);
    await expect.poll(() => reads.length).toBe(1);
    const { read, arriving } = await (reads[0] as Promise<{ read: BodyRead; arriving: number }>);
    expect(read).toEqual({ refused: 408 });
    expect(arriving).toBe(1);
    socket.destroy();
  });

  it("reads a body that comes in pieces within the time, however late its last piece", async () => {
    const { port, reads } = await reader(2_000);
    const socket = await sendRaw(port, [HEAD(5), "he", "l", "lo"], 30);
    await expect.poll(() => reads.length).toBe(1);
    const { read, arriving } = await (reads[0] as Promise<{ read: BodyRead; arriving: number }>);
    expect("body" in read && read.body.toString()).toBe("hello");
    expect(arriving).toBe(1);
    socket.destroy();
  });
});

describe("the front's reading of a request's path", () => {
  it("reads every target as the Worker's URL parser does, plain ones without it", () => {
    const targets = [
      "/",
      "/mcp",
      "/mcp/",
      "/mcp/code",
      "/api/runs/abc-1_2~3",
      "/mcp?x=1",
      "/mcp#f",
      "/a/../mcp",
      "/./mcp",
      "/%6Dcp",
      "//mcp",
      "/a//b",
      "/a\\b",
      "/mcp.json",
      "*",
    ];
    for (const target of targets) {
      let expected = "";
      try {
        expected = new URL(target, "http://front.invalid").pathname;
      } catch {
        // no URL path
      }
      expect(pathOf(target), target).toBe(expected);
    }
  });
});
