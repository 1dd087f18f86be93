/**
 * An upgrade request's way to a runtime: its head sent (the client's address and the cluster
 * secret set, as for every request: request-head.mjs), then the runtime's answer read before
 * anything more of the client's is passed on. Only a `101 Switching Protocols` makes the
 * connection a byte pipe both ways (a WebSocket); any other answer is passed to the client and
 * both connections are closed at its end.
 *
 * Why: every upgrade used to become a byte pipe at once, whatever the runtime answered, and none
 * of the product's routes switches protocols: `GET /health` with `Upgrade: websocket` got its
 * `200`, then the client's connection stayed joined to the runtime's socket (workerd kept it 5 s
 * idle, 15 s while a head trickled in), the front counted it as a stream under way, which the
 * connection bound never closes to make room (connection-cap.mjs), and whatever the client sent
 * next went to workerd without the front's checks (only the cluster secret refused it). With
 * 1,000 such connections held by one local process, 42% of other clients' new connections got
 * `503 server_busy` for as long as it went on (attack10 review); plain sockets that send nothing
 * are closed to make room, so they never did this.
 *
 * Does not do: bound a switched connection's life (a real WebSocket may last); the product
 * serves none.
 */
import { connect } from "node:net";
import { CLUSTER_SECRET_HEADER, clusterSecret } from "../cluster-secret.mjs";
import { AnswerParser, MAX_HEAD_BYTES } from "./answer-parser.mjs";
import { callerLine, clientAddress, upgradeHeaderLines } from "./request-head.mjs";

const HEAD_END = Buffer.from("\r\n\r\n");
/** The status line of an answer that switches protocols. */
const SWITCHING = /^HTTP\/1\.1 101[ \r]/;

/**
 * @typedef {import("../runtime.mjs").Runtime} Runtime
 * @typedef {import("./exchange.mjs").InFlight} InFlight
 */

/**
 * Passes an upgrade request to `runtime` and joins the two connections byte for byte once the
 * runtime switched protocols; any other answer goes to the client and ends both (see the module
 * comment). Cut off with the runtime (`inFlight`).
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:stream").Duplex} socket - the client's connection
 * @param {Buffer} rest - bytes the client sent after its headers
 * @param {Runtime} runtime
 * @param {Set<InFlight>} inFlight
 * @param {string} [caller] - who the upgrade is from (callers/peer-owners.mjs)
 */
export function pipeUpgrade(req, socket, rest, runtime, inFlight, caller = "") {
  /** Whether the runtime's answer went out whole: the client's connection is ended, not cut. */
  let answered = false;
  const to = connect(runtime.socket, () => {
    // Hop-by-hop headers dropped as for every other request, but the upgrade's own (request-head.mjs).
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`, ...upgradeHeaderLines(req)];
    // The client's address and caller and the cluster secret, as for every other request
    // (request-head.mjs).
    const address = clientAddress(req.socket.remoteAddress);
    if (address) lines.push(`CF-Connecting-IP: ${address}`);
    const named = callerLine(caller);
    if (named) lines.push(named.slice(0, -2));
    lines.push(`${CLUSTER_SECRET_HEADER}: ${clusterSecret}`);
    to.write(lines.join("\r\n") + "\r\n\r\n");
  });
  /** @type {InFlight} */
  const entry = { runtime, cutOff: () => (to.destroy(), socket.destroy()) };
  inFlight.add(entry);
  let closed = false;
  // Called by either connection's end or error, and by the answer's end: once.
  const close = () => {
    if (closed) return;
    closed = true;
    inFlight.delete(entry);
    to.destroy();
    // An answer that went out whole is ended, then the connection closed once it is written (as
    // Node's server closes after `Connection: close`): what the client sent after its head is
    // never read, so the connection is not left open waiting for its end.
    if (answered) socket.end(() => socket.destroy());
    else socket.destroy();
  };
  to.on("error", close).on("close", close);
  socket.on("error", close).on("close", close);

  // The runtime's answer head, gathered before anything of the client's after its own head is
  // read (the client's connection is not read until the runtime switched protocols).
  let head = Buffer.alloc(0);
  /** @param {Buffer} bytes */
  const onHead = (bytes) => {
    head = Buffer.concat([head, bytes]);
    const end = head.indexOf(HEAD_END);
    if (end < 0) {
      if (head.length > MAX_HEAD_BYTES) close();
      return;
    }
    to.off("data", onHead);
    if (SWITCHING.test(head.subarray(0, Math.min(end + 2, 64)).toString("latin1"))) {
      to.pause();
      socket.write(head);
      if (rest.length > 0) to.write(rest);
      socket.pipe(to).pipe(socket);
      return;
    }
    // Not switched: an ordinary answer, passed on as it comes and the connections ended after it.
    const parser = new AnswerParser(
      { head: () => {}, data: () => {}, end: () => ((answered = true), close()) },
      { head: req.method === "HEAD" },
    );
    /** @param {Buffer} piece */
    const pass = (piece) => {
      // Read from the runtime only as fast as the client takes it: written regardless, a client
      // that never reads had the front hold the whole answer (a 32 MiB one: all 32 MiB), outside
      // the budget the front's answers count in, on each of its connections (attack11).
      if (!socket.write(piece)) {
        to.pause();
        socket.once("drain", () => to.resume());
      }
      try {
        parser.feed(piece);
      } catch {
        close();
      }
    };
    to.on("data", pass);
    pass(head);
  };
  to.on("data", onHead);
}
