/**
 * The front (cli/local-server/front/front.mjs) before a runtime whose answer Node's `writeHead`
 * would refuse (a control character in its status message or a header value, a status under
 * 100): the client gets the clear cut-off error and the front's process goes on. Before, the
 * refused `writeHead` left its status message on the client's answer, the cut-off reply threw on
 * it again, out of the socket's data handler: an uncaught exception, which in `npm start` ends
 * the supervisor and the front with it. The runtime is a raw socket that writes the bytes given.
 */
import { createServer as createNetServer, connect, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createFront } from "../../../../cli/local-server/front/front.mjs";
import { socketPath } from "../../../helpers/cli/unix-socket.js";

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A runtime that answers every request with `answer`, and a front before it. */
async function frontBefore(answer: string): Promise<number> {
  const runtime: Server = createNetServer((socket) =>
    socket.on("data", () => socket.write(Buffer.from(answer, "latin1"))),
  );
  const path = socketPath();
  await new Promise<void>((resolve) => runtime.listen(path, resolve));
  const front = createFront({
    target: async () => ({ name: "runtime 1", socket: path, killedBecause: undefined }) as never,
  });
  await new Promise<void>((resolve) => front.server.listen(0, "127.0.0.1", resolve));
  closers.push(() => {
    front.server.closeAllConnections();
    front.server.close();
    runtime.close();
  });
  return (front.server.address() as AddressInfo).port;
}

/** Sends one MCP request on a raw connection; resolves with all the bytes that came back. */
function post(port: number): Promise<string> {
  return new Promise((resolve) => {
    const client = connect(port, "127.0.0.1");
    let text = "";
    client.on("data", (bytes: Uint8Array) => {
      text += Buffer.from(bytes).toString("latin1");
      // The whole answer (a JSON body with its declared length) is here.
      const length = /content-length: (\d+)/i.exec(text);
      const head = text.indexOf("\r\n\r\n");
      if (length && head >= 0 && text.length >= head + 4 + Number(length[1])) client.end();
    });
    client.on("close", () => resolve(text));
    client.write(
      'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"jsonrpc":"2.0","id":7,"method":"ping"}',
    );
  });
}

describe("the front before a runtime answer Node would not write (attack2)", () => {
  for (const [what, answer] of <[string, string][]>[
    [
      "a control character in the status message",
      "HTTP/1.1 200 O\x7fK\r\nContent-Length: 2\r\n\r\n{}",
    ],
    [
      "a control character in a header value",
      "HTTP/1.1 200 OK\r\nX-A: a\x7fb\r\nContent-Length: 2\r\n\r\n{}",
    ],
    ["a status under 100", "HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\n{}"],
  ])
    it(`answers the cut-off error for ${what}, and serves on`, async () => {
      const port = await frontBefore(answer);
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      // Vitest reports an uncaught exception too; kept here to say which.
      process.on("uncaughtException", onUncaught);
      try {
        for (let i = 0; i < 2; i++) {
          const text = await post(port);
          expect(text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
          expect(text).toContain('"id":7');
        }
        expect(uncaught).toEqual([]);
      } finally {
        process.off("uncaughtException", onUncaught);
      }
    });
});
