/**
 * One request the front passes to a runtime, and the runtime's answer passed back: the request
 * goes with its method, path, Host and all other end-to-end headers unchanged (hop-by-hop ones
 * dropped: request-head.mjs) and its body whole; an event stream comes back as it is written, any other answer is
 * held whole first (up to {@link MAX_HELD_ANSWER_BYTES}). Until the answer has ended, the exchange can be cut off (its
 * runtime replaced, crashed or lost): the client then gets a clear error for its request
 * (cut-off-reply.mjs), also when its event stream had begun, never a bare cut.
 */
import { AnswerParser } from "./answer-parser.mjs";
import { jsonRpcIds, replyCutOff, replyFrontError } from "./cut-off-reply.mjs";
import { requestHead } from "./request-head.mjs";
import { mayResend, mayResendWritten } from "./resend-rule.mjs";

/**
 * An answer that is not an event stream is held whole up to this size before it goes out, so a
 * runtime lost mid-answer still gets the client a clear 503 (4 MiB: above every JSON answer the
 * product's result limits allow; a larger answer streams as it comes).
 */
const MAX_HELD_ANSWER_BYTES = 4 * 1_048_576;
/**
 * The most text of JSON-RPC ids an exchange keeps for its cut-off error once it let go of its
 * body: legitimate ids are short; a body of one 4 MiB id must not be kept, outside the budget,
 * in another form. Past it the error carries id null. A body of at most this many bytes is kept
 * itself instead (its ids read only for an error).
 */
const MAX_KEPT_IDS_CHARS = 4_096;
/** What an exchange's body is once it let go of it. */
const NO_BODY = Buffer.alloc(0);

/**
 * @typedef {import("../runtime.mjs").Runtime} Runtime
 * @typedef {{ runtime: Runtime, cutOff: (reason: string) => void }} InFlight
 */

/**
 * The ids kept for a body that was let go of: none (the error then carries id null) when their
 * text is over {@link MAX_KEPT_IDS_CHARS}.
 * @param {(string | number)[]} ids
 */
function keptIds(ids) {
  let chars = 0;
  for (const id of ids) chars += String(id).length;
  return chars <= MAX_KEPT_IDS_CHARS ? ids : [];
}

/** A request in flight to one runtime; it is in `inFlight` from its start until it has ended. */
export class Exchange {
  /** @type {Runtime} */
  runtime;
  #res;
  #body;
  #inFlight;
  #message;
  #budget;
  /** @type {import("./body/budget.mjs").BodyHold | undefined} */
  #hold;
  /** @type {(string | number)[] | undefined} the body's ids, once a body over the bound was let go of */
  #ids;
  /** @type {import("./runtime-connections.mjs").RuntimeConnection | undefined} */
  #connection;
  #ended = false;
  /** @type {string | undefined} the answer's content type, once its headers are out */
  #answerType;
  /** @type {import("./cut-off-gate.mjs").Pass | undefined} told once how the exchange ended */
  #pass;
  /** Who the request is from, as the host is told (request-head.mjs); "": none named. */
  #caller;

  /**
   * @param {object} options
   * @param {import("node:http").ServerResponse} options.res - the client's answer
   * @param {Buffer} options.body - the request's body, read whole
   * @param {Runtime} options.runtime - the runtime that serves it
   * @param {Set<InFlight>} options.inFlight - the front's requests in flight
   * @param {(reason: string) => string} options.message - text for a cut-off request
   * @param {import("./body/budget.mjs").BodyBudget} options.budget - the front's memory budget,
   *   which an answer held whole counts in
   * @param {import("./body/budget.mjs").BodyHold} [options.hold] - what the body holds of the
   *   budget: given back once the body can no longer be sent again (#letGoOfBody)
   * @param {import("./cut-off-gate.mjs").Pass} [options.pass] - the cut-off gate's pass
   *   (cut-off-gate.mjs): told `cutOff()` when the client leaves before the answer's end (the
   *   host still works on the request), else `done()`
   * @param {string} [options.caller] - who the request is from (callers/peer-owners.mjs): the
   *   host places its runs by it
   */
  constructor({ res, body, runtime, inFlight, message, budget, hold, pass, caller = "" }) {
    this.runtime = runtime;
    this.#res = res;
    this.#body = body;
    this.#inFlight = inFlight;
    this.#message = message;
    this.#budget = budget;
    this.#hold = hold;
    this.#pass = pass;
    this.#caller = caller;
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
    this.#pass?.done();
    this.#connection?.destroy();
    replyCutOff(this.#res, this.#cutOffIds(), this.#message(reason), this.#answerType);
  }

  /**
   * Sends the request to the runtime and relays its answer to the client.
   * @param {import("node:http").IncomingMessage} req - the client's request (its body was read)
   * @param {import("./runtime-connections.mjs").RuntimeConnections} connections - the
   *   kept-alive connections to this runtime
   */
  send(req, connections) {
    const head = requestHead(req, this.#body.length, this.#caller);
    if (head === undefined) {
      this.#done();
      return replyFrontError(this.#res, 400, {
        code: "invalid_request",
        message:
          "A part of the request's head holds a control character the server does not pass on.",
        fix: "Send the method, path and header values as visible characters, spaces and tabs only.",
      });
    }
    // A client that goes away stops its request in the runtime too.
    this.#res.on("close", () => {
      if (!this.#ended) {
        // The host goes on with it until it notices: charged to the cut-offs' bound.
        this.#pass?.cutOff();
        this.#done();
        this.#connection?.destroy();
      }
    });
    this.#attempt(head, req.method ?? "GET", connections, false);
  }

  /**
   * One try at sending the request; a kept-alive connection found closed before any answer gets
   * one more try on a new connection when sending it again cannot do its work twice
   * (resend-rule.mjs). Seen in CI's e2e runaway: a trivial `search` answered "its connection
   * broke" 41 ms after it was sent, with the host well.
   * @param {string} head - the request line and headers
   * @param {string} method - the request's method (an answer to HEAD has no body)
   * @param {import("./runtime-connections.mjs").RuntimeConnections} connections
   * @param {boolean} retried - this is the one more try (on a new connection)
   */
  #attempt(head, method, connections, retried) {
    // The runtime's Unix socket in the server's private folder (runtime.mjs): the secret
    // and the clients' Authorization headers sent here can reach no other user's process.
    const connection = connections.take(retried);
    this.#connection = connection;
    let answered = false;
    /** @type {Relay | undefined} */
    let relay;
    const parser = new AnswerParser(
      {
        head: (answer) => {
          // The host has begun it: it no longer counts against its caller's share.
          this.#pass?.began();
          this.#letGoOfBody();
          relay = answer.contentType?.startsWith("text/event-stream")
            ? this.#relayStream(answer, connection)
            : this.#holdAnswer(answer, connection);
        },
        data: (bytes) => relay?.data(bytes),
        end: () => relay?.end(),
      },
      { head: method === "HEAD" },
    );
    connection.send(
      {
        // A request that can no longer be sent again needs its body no more.
        written: () => {
          if (!mayResendWritten(method)) this.#letGoOfBody();
        },
        data: (bytes) => {
          answered = true;
          if (this.#ended) return connection.destroy();
          try {
            parser.feed(bytes);
          } catch {
            connection.destroy();
            return this.#lost();
          }
          if (parser.done) connections.giveBack(connection, parser.reusable);
        },
        closed: (error) => {
          if (this.#ended) return;
          try {
            // A body that lasts until the connection closes ends here.
            parser.close();
            return;
          } catch {
            // cut short
          }
          const again =
            !retried &&
            !answered &&
            !this.runtime.killedBecause &&
            mayResend({ method, reused: connection.reused, unsent: connection.unsent, error });
          if (again) this.#attempt(head, method, connections, true);
          else this.#lost();
        },
      },
      head,
      this.#body,
    );
  }

  /**
   * The body will not be sent again (it was handed to the system whole and its method may not
   * be resent, or the answer began): its bytes leave the budget and the exchange keeps only its
   * ids (for a cut-off error). Its bytes used to count until the client's connection took the
   * answer's last byte: clients that never read, or whose requests ran long, held bodies that no
   * arriving body could evict, and every other upload got 503 (attackf review).
   */
  #letGoOfBody() {
    if (this.#hold === undefined) return;
    // A body no longer than the ids' bound is kept as it is (it holds no more than its ids
    // would) and read for its ids only if a cut-off error needs them: parsing every body here
    // was ~2 % of the front's CPU per request (issue #43).
    if (this.#body.length > MAX_KEPT_IDS_CHARS) {
      this.#ids = keptIds(jsonRpcIds(this.#body));
      this.#body = NO_BODY;
    }
    this.#hold.release();
    this.#hold = undefined;
  }

  /** The ids a cut-off error echoes: the body's (bounded once the body was let go of). */
  #cutOffIds() {
    if (this.#ids) return this.#ids;
    const ids = jsonRpcIds(this.#body);
    return this.#hold === undefined ? keptIds(ids) : ids;
  }

  /** The answer went out whole. */
  #done() {
    this.#ended = true;
    this.#inFlight.delete(this);
    this.#pass?.done();
  }

  /** The runtime's connection broke before the answer's end. */
  #lost() {
    this.cutOff(this.runtime.killedBecause ?? "its connection broke");
  }

  /**
   * Passes an event stream on as it comes (its client waits for the headers). Not ended before
   * the answer's own end: an answer cut short (the runtime died mid-stream) must end with the
   * clear error, not as if it had finished.
   *
   * Fewer writes, same bytes: the headers go out with the first event when it is already here
   * (a short answer, as for `ping` or a quick tool call, arrives with its headers), or on their
   * own at the next turn of the event loop when it is not (a stream that waits for its first
   * event still has its headers at once). Each write saved is a wake-up of the client and of
   * this process: the front's cost per request is mostly such wake-ups (issue #28, bench L1).
   * @param {import("./answer-parser.mjs").AnswerHead} answer
   * @param {import("./runtime-connections.mjs").RuntimeConnection} connection
   * @returns {Relay}
   */
  #relayStream(answer, connection) {
    const res = this.#res;
    res.writeHead(answer.status, answer.statusMessage, answer.rawHeaders);
    this.#answerType = answer.contentType;
    let wrote = false;
    setImmediate(() => {
      if (!wrote && !res.writableEnded) res.flushHeaders();
    });
    return {
      data: (bytes) => {
        if (this.#ended) return;
        wrote = true;
        // Backpressure: a slow client pauses the runtime's answer rather than filling memory.
        if (!res.write(bytes)) {
          connection.pause();
          res.once("drain", () => connection.resume());
        }
      },
      end: () => {
        if (this.#ended) return;
        res.end();
        this.#done();
      },
    };
  }

  /**
   * Passes on an answer that is not an event stream only once it is whole (up to
   * MAX_HELD_ANSWER_BYTES; past that it streams): a runtime that dies after its headers but
   * before its body's end then still gets the client a clear 503, where headers already sent
   * would leave only a cut connection (seen in e2e heal: 1 run in 4 ended "terminated").
   *
   * What it holds counts in the front's memory budget until its client's connection took the
   * last byte (res "close"): a client that never read kept every answer it asked for in the
   * front's memory. An answer the budget has no room for streams instead, read from the runtime
   * only as fast as the client reads it (body/budget.mjs), so such clients hold little each.
   * @param {import("./answer-parser.mjs").AnswerHead} answer
   * @param {import("./runtime-connections.mjs").RuntimeConnection} connection
   * @returns {Relay}
   */
  #holdAnswer(answer, connection) {
    const res = this.#res;
    /** @type {Buffer[]} */
    const held = [];
    let size = 0;
    let streaming = false;
    const share = this.#budget.answerHold();
    res.once("close", share.release);
    const writeHead = () => {
      res.writeHead(answer.status, answer.statusMessage, answer.rawHeaders);
      this.#answerType = answer.contentType ?? "";
    };
    return {
      data: (bytes) => {
        if (this.#ended) return;
        if (!streaming && size + bytes.length <= MAX_HELD_ANSWER_BYTES && share.add(bytes.length)) {
          // Each piece read from a socket is a buffer of its own: kept as it is.
          held.push(bytes);
          size += bytes.length;
          return;
        }
        if (!streaming) {
          streaming = true;
          writeHead();
          for (const chunk of held.splice(0)) res.write(chunk);
        }
        if (!res.write(bytes)) {
          connection.pause();
          res.once("drain", () => connection.resume());
        }
      },
      end: () => {
        if (this.#ended) return;
        if (streaming) res.end();
        else {
          // Headers and the whole body in one write.
          writeHead();
          res.end(held.length === 1 ? held[0] : Buffer.concat(held, size));
        }
        this.#done();
      },
    };
  }
}

/**
 * @typedef {{ data: (bytes: Buffer) => void, end: () => void }} Relay
 */
