/**
 * Reads a runtime's HTTP/1.1 answer from the bytes of its connection, as they come: its status
 * line and headers, then its body's bytes (de-chunked) and its end. The front's hop to a runtime
 * is a plain Unix socket (runtime-connection.mjs), not `node:http`'s client: that client's
 * request, agent and answer objects were a fifth of the front's CPU per request (issue #43,
 * bench/README.md), for answers that come from one known peer (our own workerd) in a few known
 * shapes.
 *
 * Framing, as RFC 9112 §6.3 orders it: an answer to `HEAD` and a `204` or `304` have no body; an
 * interim `1xx` (a `100 Continue`) is skipped (its headers dropped, the next answer read); a
 * `Transfer-Encoding` ending in `chunked` is de-chunked (its trailers dropped); else a
 * `Content-Length` counts the body; else the body lasts until the connection closes. An answer
 * that comes apart from that (a malformed status line, header or chunk, a head over
 * {@link MAX_HEAD_BYTES}, bytes past a complete answer, a connection closed before the end) is
 * an error: the exchange then ends with the cut-off error, as for a runtime lost mid-answer.
 *
 * Does not do: HTTP/1.0 keep-alive (an HTTP/1.0 answer is never reused), `101 Switching
 * Protocols` (upgrades are piped byte for byte by front.mjs, never sent this way).
 */

/** The most a status line and headers may take (workerd's own bound on a head is 64 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * Answer headers that speak of the runtime's connection to the front, not of the client's
 * (RFC 9110 §7.6.1): not passed on. Node's server sets the client's own from its request; a
 * runtime's `Connection: keep-alive` passed on overrode a client's `Connection: close` (Node
 * keeps a connection whose answer says so), and its `Keep-Alive: timeout=…` spoke of workerd's
 * bound, not the front's. (`Transfer-Encoding` is kept: Node frames the body by it.)
 */
const HOP_BY_HOP_ANSWER = new Set(["connection", "keep-alive", "proxy-connection", "upgrade"]);

/**
 * @typedef {object} AnswerHead
 * @property {number} status
 * @property {string} statusMessage
 * @property {string[]} rawHeaders - names and values in turn, as `IncomingMessage.rawHeaders`,
 *   but the hop-by-hop ones of {@link HOP_BY_HOP_ANSWER}
 * @property {string | undefined} contentType - the first `Content-Type`, lower-cased
 * @property {boolean} keepAlive - whether the connection may carry another request after it
 */

/**
 * @typedef {object} AnswerEvents
 * @property {(head: AnswerHead) => void} head - the final answer's head (not an interim 1xx)
 * @property {(bytes: Buffer) => void} data - a piece of its body
 * @property {() => void} end - its body is whole
 */

const CRLF = Buffer.from("\r\n");
const HEAD_END = Buffer.from("\r\n\r\n");
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/;
/**
 * A character Node's `writeHead` refuses in a status message or header value (its own check):
 * such an answer is refused here, as one that comes apart. Passed on, `writeHead` threw; the
 * cut-off reply then threw again on the status message left behind, out of the socket's data
 * handler: an uncaught exception that ended the server's process (supervisor and front).
 */
// oxlint-disable-next-line no-control-regex -- control characters are what it looks for
const NOT_IN_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** An answer that cannot be read: the exchange treats it as a runtime lost mid-answer. */
export class AnswerError extends Error {}

/**
 * An incremental reader of one answer: `feed` each piece of the connection's bytes in order,
 * `close` when the connection ended. Calls `events` as the answer's parts become known; throws
 * {@link AnswerError} when the bytes are no such answer.
 */
export class AnswerParser {
  /** @type {AnswerEvents} */
  #events;
  #noBody;
  /** @type {"head" | "length" | "chunk-size" | "chunk-data" | "chunk-end" | "trailers" | "close" | "done"} */
  #state = "head";
  /** Bytes of a head, a chunk-size line or trailers not yet whole. */
  #pending = Buffer.alloc(0);
  /** Length of #pending's bytes once a delimiter was found in them (set by #collect). */
  #pendingLength = 0;
  /** Body bytes still due: of the whole body (length) or of the current chunk. */
  #left = 0;
  #keepAlive = false;

  /**
   * @param {AnswerEvents} events
   * @param {{ head?: boolean }} [request] - `head`: the request was `HEAD` (its answer has no body)
   */
  constructor(events, request = {}) {
    this.#events = events;
    this.#noBody = request.head === true;
  }

  /** Whether the whole answer was read. */
  get done() {
    return this.#state === "done";
  }

  /** Whether the connection may carry another request (known once the answer is done). */
  get reusable() {
    return this.#state === "done" && this.#keepAlive;
  }

  /**
   * Reads the next bytes of the connection.
   * @param {Buffer} bytes
   */
  feed(bytes) {
    let at = 0;
    while (at < bytes.length) {
      switch (this.#state) {
        case "head": {
          const end = this.#collect(bytes, at, HEAD_END, MAX_HEAD_BYTES, "head");
          if (end < 0) return;
          at = end;
          this.#readHead();
          break;
        }
        case "length": {
          const n = Math.min(this.#left, bytes.length - at);
          this.#left -= n;
          this.#events.data(bytes.subarray(at, at + n));
          at += n;
          if (this.#left === 0) this.#finish();
          break;
        }
        case "close":
          this.#events.data(at === 0 ? bytes : bytes.subarray(at));
          return;
        case "chunk-size": {
          const end = this.#collect(bytes, at, CRLF, 1024, "chunk size line");
          if (end < 0) return;
          at = end;
          const line = this.#take().toString("latin1", 0, this.#pendingLength - 2);
          const size = CHUNK_SIZE.exec(line);
          if (!size) throw new AnswerError(`a malformed chunk size line: ${JSON.stringify(line)}`);
          this.#left = Number.parseInt(/** @type {string} */ (size[1]), 16);
          this.#state = this.#left === 0 ? "trailers" : "chunk-data";
          break;
        }
        case "chunk-data": {
          const n = Math.min(this.#left, bytes.length - at);
          this.#left -= n;
          this.#events.data(bytes.subarray(at, at + n));
          at += n;
          if (this.#left === 0) {
            this.#state = "chunk-end";
            this.#left = 2;
          }
          break;
        }
        case "chunk-end": {
          // The CRLF after a chunk's data, possibly split between two pieces.
          const expected = this.#left === 2 ? 13 : 10;
          if (bytes[at] !== expected) throw new AnswerError("a chunk not ended by CRLF");
          at++;
          if (--this.#left === 0) this.#state = "chunk-size";
          break;
        }
        case "trailers": {
          // Trailer lines up to an empty line; none of them is passed on.
          const end = this.#collect(bytes, at, CRLF, MAX_HEAD_BYTES, "trailers");
          if (end < 0) return;
          at = end;
          const empty = this.#pendingLength === 2;
          this.#take();
          if (empty) this.#finish();
          break;
        }
        case "done":
          throw new AnswerError("bytes after the end of the answer");
      }
    }
  }

  /**
   * The connection ended: the end of a body that lasts until then, else an answer cut short.
   */
  close() {
    if (this.#state === "close") return this.#finish();
    if (this.#state !== "done")
      throw new AnswerError("the connection closed before the answer's end");
  }

  /**
   * Gathers bytes into #pending up to and including `delimiter`; returns the index in `bytes`
   * just past it, or -1 (all of `bytes` taken, the delimiter not there yet).
   * @param {Buffer} bytes
   * @param {number} at
   * @param {Buffer} delimiter
   * @param {number} max
   * @param {string} what
   */
  #collect(bytes, at, delimiter, max, what) {
    const before = this.#pending.length;
    // Searched from where a delimiter split between two pieces could start.
    const joined =
      before === 0 ? bytes.subarray(at) : Buffer.concat([this.#pending, bytes.subarray(at)]);
    const from = Math.max(0, before - delimiter.length + 1);
    const found = joined.indexOf(delimiter, from);
    if (found < 0 || found + delimiter.length > max) {
      if (joined.length > max || (found >= 0 && found + delimiter.length > max))
        throw new AnswerError(`the answer's ${what} is over ${max} bytes`);
      // Kept as a copy: the connection's piece may be reused by whoever gave it.
      this.#pending = Buffer.from(joined);
      return -1;
    }
    this.#pending = joined.subarray(0, found + delimiter.length);
    this.#pendingLength = found + delimiter.length;
    return at + (found + delimiter.length - before);
  }

  /** Takes #pending (and empties it). */
  #take() {
    const taken = this.#pending;
    this.#pending = Buffer.alloc(0);
    return taken;
  }

  /** Reads the head #collect gathered (its final empty line included). */
  #readHead() {
    const head = readHead(this.#take().toString("latin1", 0, this.#pendingLength - 4));
    const { status } = head.answer;
    // An interim answer (100 Continue): its headers are dropped, the final one follows.
    if (status < 200) return;
    this.#keepAlive = head.answer.keepAlive;
    this.#events.head(head.answer);
    if (this.#noBody || status === 204 || status === 304) return this.#finish();
    if (head.chunked) this.#state = "chunk-size";
    else if (head.contentLength !== undefined) {
      this.#left = head.contentLength;
      if (head.contentLength === 0) this.#finish();
      else this.#state = "length";
    } else {
      // Until the connection closes: never reused.
      this.#keepAlive = false;
      this.#state = "close";
    }
  }

  #finish() {
    this.#state = "done";
    this.#events.end();
  }
}

/**
 * A head as read (`answer`), with its framing: what {@link readHead} returns (frozen, `answer`
 * and its headers too: the same may be given again).
 * @typedef {{ answer: AnswerHead, contentLength: number | undefined, chunked: boolean }} ReadHead
 */

/** How many heads {@link readHead} keeps, with their texts. */
export const KEPT_HEADS = 4;
/** The heads read last, by their texts, the least recently used first. @type {Map<string, ReadHead>} */
const keptHeads = new Map();

/**
 * Reads a status line and headers (`text`, without the empty line that ends them). A text read
 * lately gives the same (frozen) result without reading it again: splitting and checking every
 * line of every answer was ~2.5 % of the front's CPU per request (issue #43), and a runtime
 * answers `ping`, a tool call or a search with the same head each time. A few are kept, the
 * most recently used, so the supervisor's probes (whose heads carry counts) do not push out
 * the requests' heads.
 * @param {string} text
 * @returns {ReadHead}
 */
export function readHead(text) {
  const kept = keptHeads.get(text);
  if (kept) {
    keptHeads.delete(text);
    keptHeads.set(text, kept);
    return kept;
  }
  const head = parseHead(text);
  Object.freeze(head.answer.rawHeaders);
  Object.freeze(head.answer);
  Object.freeze(head);
  if (keptHeads.size >= KEPT_HEADS)
    keptHeads.delete(/** @type {string} */ (keptHeads.keys().next().value));
  keptHeads.set(text, head);
  return head;
}

/**
 * Reads a status line and headers; throws {@link AnswerError} on anything malformed, a `101`,
 * or a framing other than chunked.
 * @param {string} text
 * @returns {ReadHead}
 */
function parseHead(text) {
  const lines = text.split("\r\n");
  const statusLine = STATUS_LINE.exec(/** @type {string} */ (lines[0]));
  if (!statusLine) throw new AnswerError(`a malformed status line: ${JSON.stringify(lines[0])}`);
  const status = Number(statusLine[2]);
  if (status < 100 || NOT_IN_VALUE.test(statusLine[3] ?? ""))
    throw new AnswerError(`a malformed status line: ${JSON.stringify(lines[0])}`);
  /** @type {string[]} */
  const rawHeaders = [];
  let contentType;
  let contentLength;
  let transferEncoding = "";
  let connection = "";
  for (let i = 1; i < lines.length; i++) {
    const line = /** @type {string} */ (lines[i]);
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name))
      throw new AnswerError(`a malformed header line: ${JSON.stringify(line)}`);
    const value = trimSpaces(line, colon + 1);
    if (NOT_IN_VALUE.test(value))
      throw new AnswerError(`a malformed header value: ${JSON.stringify(line)}`);
    const lower = name.toLowerCase();
    if (!HOP_BY_HOP_ANSWER.has(lower)) rawHeaders.push(name, value);
    switch (lower) {
      case "content-length":
        if (
          !/^\d{1,15}$/.test(value) ||
          (contentLength !== undefined && contentLength !== Number(value))
        )
          throw new AnswerError(`a malformed Content-Length: ${JSON.stringify(value)}`);
        contentLength = Number(value);
        break;
      case "content-type":
        contentType ??= value.toLowerCase();
        break;
      case "transfer-encoding":
        transferEncoding += `${transferEncoding ? "," : ""}${value.toLowerCase()}`;
        break;
      case "connection":
        connection += `,${value.toLowerCase()}`;
        break;
    }
  }
  if (status === 101) throw new AnswerError("a 101 answer to a request that asked no upgrade");
  const chunked = /(?:^|,)\s*chunked\s*$/.test(transferEncoding);
  if (status >= 200 && transferEncoding && !chunked)
    throw new AnswerError(`an answer framed by ${JSON.stringify(transferEncoding)}, not chunked`);
  const keepAlive = !(statusLine[1] === "0" || /,\s*close\s*(?:,|$)/.test(connection));
  return {
    answer: { status, statusMessage: statusLine[3] ?? "", rawHeaders, contentType, keepAlive },
    contentLength,
    chunked,
  };
}

/**
 * `line` from `from` without the spaces and tabs around it (HTTP's OWS; `String.trim` also takes
 * away a vertical tab, a form feed or a no-break space that the value holds). A loop, not a
 * regular expression: `/[ \t]+$/` on 64 KiB of spaces before a letter is quadratic.
 * @param {string} line
 * @param {number} from
 */
function trimSpaces(line, from) {
  let start = from;
  let end = line.length;
  while (start < end && (line[start] === " " || line[start] === "\t")) start++;
  while (end > start && (line[end - 1] === " " || line[end - 1] === "\t")) end--;
  return line.slice(start, end);
}
