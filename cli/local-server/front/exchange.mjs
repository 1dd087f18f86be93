/**
 * One request the front passes to a runtime, and the runtime's answer passed back: the request
 * goes with its method, path, Host and all other headers unchanged and its body whole; an event
 * stream comes back as it is written, any other answer is held whole first (up to
 * {@link MAX_HELD_ANSWER_BYTES}). Until the answer has ended, the exchange can be cut off (its
 * runtime replaced, crashed or lost): the client then gets a clear error for its request
 * (cut-off-reply.mjs), also when its event stream had begun, never a bare cut.
 */
import { request } from "node:http";
import { CLUSTER_SECRET_HEADER, clusterSecret } from "../cluster-secret.mjs";
import { jsonRpcIds, replyCutOff } from "./cut-off-reply.mjs";

/**
 * An answer that is not an event stream is held whole up to this size before it goes out, so a
 * runtime lost mid-answer still gets the client a clear 503 (4 MiB: above every JSON answer the
 * product's result limits allow; a larger answer streams as it comes).
 */
const MAX_HELD_ANSWER_BYTES = 4 * 1_048_576;
/**
 * Request headers the front sets itself: the body's framing (it sends the body whole, with its
 * length), the client's address and the cluster secret (a client's own is dropped).
 */
const SET_BY_FRONT = new Set([
  "content-length",
  "transfer-encoding",
  "cf-connecting-ip",
  CLUSTER_SECRET_HEADER,
]);
/**
 * Errors of a kept-alive connection the runtime closed as the request went out on it: workerd
 * closes a connection idle for 5 s, and a request sent at that moment meets a reset or a closed
 * pipe before any answer. The runtime never read it (it closes only while waiting for a request
 * to begin), so it is sent again once, on a new connection.
 */
const STALE_CONNECTION = new Set(["ECONNRESET", "EPIPE"]);

/**
 * @typedef {import("../runtime.mjs").Runtime} Runtime
 * @typedef {{ runtime: Runtime, cutOff: (reason: string) => void }} InFlight
 */

/** A request in flight to one runtime; it is in `inFlight` from its start until it has ended. */
export class Exchange {
  /** @type {Runtime} */
  runtime;
  #res;
  #body;
  #inFlight;
  #message;
  /** @type {import("node:http").ClientRequest | undefined} */
  #upstream;
  #ended = false;
  /** @type {string | undefined} the answer's content type, once its headers are out */
  #answerType;

  /**
   * @param {object} options
   * @param {import("node:http").ServerResponse} options.res - the client's answer
   * @param {Buffer} options.body - the request's body, read whole
   * @param {Runtime} options.runtime - the runtime that serves it
   * @param {Set<InFlight>} options.inFlight - the front's requests in flight
   * @param {(reason: string) => string} options.message - text for a cut-off request
   */
  constructor({ res, body, runtime, inFlight, message }) {
    this.runtime = runtime;
    this.#res = res;
    this.#body = body;
    this.#inFlight = inFlight;
    this.#message = message;
    inFlight.add(this);
  }

  /**
   * Ends the exchange with the cut-off error for its request (once; nothing after it ended).
   * @param {string} reason - why the runtime was replaced
   */
  cutOff(reason) {
    if (this.#ended) return;
    this.#ended = true;
    this.#inFlight.delete(this);
    this.#upstream?.destroy();
    replyCutOff(this.#res, jsonRpcIds(this.#body), this.#message(reason), this.#answerType);
  }

  /**
   * Sends the request to the runtime and relays its answer to the client.
   * @param {import("node:http").IncomingMessage} req - the client's request (its body was read)
   * @param {import("node:http").Agent} agent - the keep-alive connections to this runtime
   */
  send(req, agent) {
    const body = this.#body;
    /** @type {string[]} */
    const headers = [];
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2)
      if (!SET_BY_FRONT.has(String(raw[i]).toLowerCase()))
        headers.push(String(raw[i]), String(raw[i + 1]));
    if (body.length > 0 || !["GET", "HEAD"].includes(req.method ?? "GET"))
      headers.push("Content-Length", String(body.length));
    // The client's address, as Cloudflare's edge sets it (replacing any the client sent): the
    // consent page's attempt limit counts guesses per address (src/app/oauth/attempt-limiter.ts).
    // A client's own header used to reach the Worker, so it could choose its count's key.
    const address = clientAddress(req.socket.remoteAddress);
    if (address) headers.push("CF-Connecting-IP", address);
    // The runtime serves only the server's own processes (cluster-secret.mjs); it trusts the
    // address above because this comes with it.
    headers.push(CLUSTER_SECRET_HEADER, clusterSecret);
    // A client that goes away stops its request in the runtime too.
    this.#res.on("close", () => {
      if (!this.#ended) {
        this.#done();
        this.#upstream?.destroy();
      }
    });
    this.#attempt({ method: req.method, path: req.url, headers }, agent, false);
  }

  /**
   * One try at sending the request; a kept-alive connection found closed before any answer
   * (STALE_CONNECTION) gets one more try on a new connection. Seen in CI's e2e runaway: a
   * trivial `search` answered "its connection broke" 41 ms after it was sent, with the host
   * well.
   * @param {{ method?: string, path?: string, headers: string[] }} head
   * @param {import("node:http").Agent | false} agent - false for a new connection
   * @param {boolean} retried
   */
  #attempt(head, agent, retried) {
    // The runtime's Unix socket in the server's private folder (runtime.mjs): the secret
    // and the clients' Authorization headers sent here can reach no other user's process.
    const upstream = request({ socketPath: this.runtime.socket, ...head, agent });
    this.#upstream = upstream;
    let answered = false;
    // No Nagle delay toward the runtime either: the agent's sockets leave it on.
    upstream.on("socket", (socket) => socket.setNoDelay(true));
    upstream.on("response", (answer) => {
      answered = true;
      const status = answer.statusCode ?? 502;
      const type = String(answer.headers["content-type"] ?? "");
      if (type.startsWith("text/event-stream")) this.#relayStream(answer, status, type);
      else this.#holdAnswer(answer, status);
    });
    upstream.on("error", (/** @type {NodeJS.ErrnoException} */ error) => {
      if (this.#ended) return;
      const stale =
        !retried && !answered && upstream.reusedSocket && STALE_CONNECTION.has(error.code ?? "");
      if (stale && !this.runtime.killedBecause) this.#attempt(head, false, true);
      else this.#lost();
    });
    upstream.end(this.#body);
  }

  /** The answer went out whole. */
  #done() {
    this.#ended = true;
    this.#inFlight.delete(this);
  }

  /** The runtime's connection broke before the answer's end. */
  #lost() {
    this.cutOff(this.runtime.killedBecause ?? "its connection broke");
  }

  /**
   * Passes an event stream on as it comes (its client waits for the headers). Not piped with
   * its end: an answer cut short (the runtime died mid-stream) must end with the clear error,
   * not as if it had finished.
   *
   * Fewer writes, same bytes: the headers go out with the first event when it is already here
   * (a short answer, as for `ping` or a quick tool call, arrives with its headers), or on their
   * own at the next turn of the event loop when it is not (a stream that waits for its first
   * event still has its headers at once); the stream ends on the answer's `end`, a turn before
   * its `close`. Each write saved is a wake-up of the client and of this process: the front's
   * cost per request is mostly such wake-ups (issue #28, bench L1).
   * @param {import("node:http").IncomingMessage} answer
   * @param {number} status
   * @param {string} type - its content type
   */
  #relayStream(answer, status, type) {
    const res = this.#res;
    res.writeHead(status, answer.statusMessage, answer.rawHeaders);
    this.#answerType = type;
    let wrote = false;
    answer.once("data", () => (wrote = true));
    setImmediate(() => {
      if (!wrote && !res.writableEnded) res.flushHeaders();
    });
    answer.pipe(res, { end: false });
    answer.on("end", () => {
      if (this.#ended) return;
      res.end();
      this.#done();
    });
    answer.on("close", () => {
      if (!this.#ended) this.#lost();
    });
    answer.on("error", () => this.#lost());
  }

  /**
   * Passes on an answer that is not an event stream only once it is whole (up to
   * MAX_HELD_ANSWER_BYTES; past that it streams): a runtime that dies after its headers but
   * before its body's end then still gets the client a clear 503, where headers already sent
   * would leave only a cut connection (seen in e2e heal: 1 run in 4 ended "terminated").
   * @param {import("node:http").IncomingMessage} answer
   * @param {number} status
   */
  #holdAnswer(answer, status) {
    const res = this.#res;
    /** @type {Buffer[]} */
    const held = [];
    let size = 0;
    let streaming = false;
    const startStreaming = () => {
      streaming = true;
      res.writeHead(status, answer.statusMessage, answer.rawHeaders);
      this.#answerType = String(answer.headers["content-type"] ?? "");
      for (const chunk of held.splice(0)) res.write(chunk);
    };
    answer.on("data", (chunk) => {
      if (this.#ended) return;
      if (!streaming && size + chunk.length <= MAX_HELD_ANSWER_BYTES) {
        held.push(chunk);
        size += chunk.length;
        return;
      }
      if (!streaming) startStreaming();
      // Backpressure: a slow client pauses the runtime's answer rather than filling memory.
      if (!res.write(chunk)) {
        answer.pause();
        res.once("drain", () => answer.resume());
      }
    });
    // On `end` (the whole answer is here), a turn before `close`.
    answer.on("end", () => {
      if (this.#ended) return;
      if (streaming) res.end();
      else {
        // Headers and the whole body in one write.
        res.writeHead(status, answer.statusMessage, answer.rawHeaders);
        this.#answerType = String(answer.headers["content-type"] ?? "");
        res.end(held.length === 1 ? held[0] : Buffer.concat(held));
      }
      this.#done();
    });
    // Closed before its end: the runtime's connection broke mid-answer.
    answer.on("close", () => {
      if (!this.#ended) this.#lost();
    });
    answer.on("error", () => this.#lost());
  }
}

/**
 * A socket's remote address as Cloudflare writes it: an IPv4 client on a dual-stack socket
 * (`::ffff:127.0.0.1`) as plain IPv4.
 * @param {string | undefined} address
 */
export function clientAddress(address) {
  return address?.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}
