/**
 * The front's reader of a runtime's answer (cli/local-server/front/answer-parser.mjs): status
 * and headers, the body by each framing HTTP/1.1 allows (length, chunked, until close, none),
 * interim answers skipped, and every answer that comes apart refused, whatever way the bytes
 * are split into pieces (a socket hands them over as they come).
 */
import { describe, expect, it } from "vitest";
import {
  AnswerError,
  AnswerParser,
  KEPT_HEADS,
  MAX_HEAD_BYTES,
  readHead,
} from "../../../../cli/local-server/front/answer-parser.mjs";
import { beyondStepBudget, countRegexRuns } from "../../../helpers/regex-runs";

type Head = {
  status: number;
  statusMessage: string;
  rawHeaders: string[];
  contentType: string | undefined;
  keepAlive: boolean;
};

/** Feeds `text` in pieces of `size` bytes (all at once when 0); returns what was read. */
function read(text: string, { size = 0, head = false, close = false } = {}) {
  const heads: Head[] = [];
  let body = "";
  let ends = 0;
  const parser = new AnswerParser(
    {
      head: (h: Head) => heads.push(h),
      data: (bytes: Uint8Array) => (body += Buffer.from(bytes).toString("latin1")),
      end: () => ends++,
    },
    { head },
  );
  const bytes = Buffer.from(text, "latin1");
  const step = size || bytes.length;
  for (let at = 0; at < bytes.length; at += step) parser.feed(bytes.subarray(at, at + step));
  if (close) parser.close();
  return { heads, body, ends, done: parser.done, reusable: parser.reusable };
}

/** Every way of splitting: whole, then pieces of 1, 2, 3, 5 and 7 bytes. */
const SPLITS = [0, 1, 2, 3, 5, 7];

describe("the front's reader of a runtime's answer", () => {
  it("reads a Content-Length answer: status, headers as sent, body, end; reusable", () => {
    const text =
      "HTTP/1.1 201 Created\r\nContent-Type: Application/JSON\r\nX-Two:  a b \r\ncontent-length: 11\r\n\r\n" +
      '{"ok":true}';
    for (const size of SPLITS) {
      const got = read(text, { size });
      expect(got.heads).toEqual([
        {
          status: 201,
          statusMessage: "Created",
          rawHeaders: ["Content-Type", "Application/JSON", "X-Two", "a b", "content-length", "11"],
          contentType: "application/json",
          keepAlive: true,
        },
      ]);
      expect(got).toMatchObject({ body: '{"ok":true}', ends: 1, done: true, reusable: true });
    }
  });

  it("de-chunks a chunked answer (extensions and trailers dropped), in any pieces", () => {
    const text =
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" +
      "6\r\nevent:\r\n" +
      '1a;ext=1\r\n data: {"id":1}\n\n and more\r\n' +
      "0\r\nx-trailer: t\r\n\r\n";
    for (const size of SPLITS) {
      const got = read(text, { size });
      expect(got.body).toBe('event: data: {"id":1}\n\n and more');
      expect(got).toMatchObject({ ends: 1, done: true, reusable: true });
      expect(got.heads[0]?.contentType).toBe("text/event-stream");
    }
  });

  it("has no body for HEAD, 204 and 304; a zero length ends at once", () => {
    const head = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n";
    expect(read(head, { head: true })).toMatchObject({ ends: 1, reusable: true });
    expect(read("HTTP/1.1 204 No Content\r\n\r\n")).toMatchObject({ ends: 1, reusable: true });
    expect(read("HTTP/1.1 304 Not Modified\r\ncontent-length: 9\r\n\r\n")).toMatchObject({
      ends: 1,
    });
    expect(read("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")).toMatchObject({
      body: "",
      ends: 1,
      reusable: true,
    });
  });

  it("skips an interim 100 Continue and reads the final answer", () => {
    const got = read(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
      { size: 4 },
    );
    expect(got.heads.map((h) => h.status)).toEqual([200]);
    expect(got).toMatchObject({ body: "ok", ends: 1 });
  });

  it("passes on no header of the runtime's own connection (RFC 9110 §7.6.1)", () => {
    // A runtime's `Connection: keep-alive` passed on made Node keep a client's connection that
    // asked `Connection: close`; its `Keep-Alive` spoke of workerd's bound, not the front's.
    const got = read(
      "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nUpgrade: h2c\r\nX-Kept: 1\r\ncontent-length: 0\r\n\r\n",
    );
    expect(got).toMatchObject({ done: true, reusable: true });
    expect(got.heads[0]?.rawHeaders).toEqual(["X-Kept", "1", "content-length", "0"]);
  });

  it("reads a body without length until the connection closes, and never reuses it", () => {
    const text = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nall of it";
    const open = read(text);
    expect(open).toMatchObject({ body: "all of it", ends: 0, done: false });
    const closed = read(text, { close: true });
    expect(closed).toMatchObject({ body: "all of it", ends: 1, done: true, reusable: false });
  });

  it("does not reuse a connection the runtime closes (Connection: close, HTTP/1.0)", () => {
    expect(
      read("HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\ncontent-length: 0\r\n\r\n"),
    ).toMatchObject({ done: true, reusable: false });
    expect(read("HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n")).toMatchObject({
      done: true,
      reusable: false,
    });
  });

  it("refuses an answer that comes apart: its client then gets the cut-off error", () => {
    const bad = [
      "HTTP/2 200\r\n\r\n",
      "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
      "HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nabc",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabX\r\n",
      "HTTP/1.1 101 Switching Protocols\r\n\r\n",
      // Bytes past the end: a second answer nobody asked for.
      "HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nxHTTP/1.1 200 OK\r\n\r\n",
    ];
    for (const text of bad) expect(() => read(text), text).toThrow(AnswerError);
  });

  it("refuses a head over its bound, even one whose end never comes", () => {
    const long = `HTTP/1.1 200 OK\r\nx-big: ${"a".repeat(MAX_HEAD_BYTES)}\r\n\r\n`;
    expect(() => read(long)).toThrow(/over 65536 bytes/);
    expect(() => read(long.slice(0, MAX_HEAD_BYTES + 10), { size: 1000 })).toThrow(AnswerError);
  });

  it("refuses an answer cut short by the connection's close", () => {
    for (const text of [
      "",
      "HTTP/1.1 200 OK\r\ncontent-len",
      "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab",
    ])
      expect(() => read(text, { close: true }), text).toThrow(/closed before the answer's end/);
  });
});

describe("the front's reader of a runtime's answer: what Node's writeHead would refuse (attack2)", () => {
  it("refuses a status message or header value with a character writeHead throws on", () => {
    for (const text of [
      "HTTP/1.1 200 O\x7fK\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nX-A: a\x7fb\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nX-A: a\nb\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 099 Odd\r\nContent-Length: 0\r\n\r\n",
    ])
      for (const size of SPLITS) expect(() => read(text, { size })).toThrow(AnswerError);
  });

  it("keeps obs-text (bytes 0x80–0xff) and takes only spaces and tabs from a value's ends", () => {
    const got = read(
      "HTTP/1.1 200 \xe9t\xe9\r\nX-A: \t\xa0caf\xe9\xa0 \r\nContent-Length: 0\r\n\r\n",
    );
    expect(got.heads[0]?.statusMessage).toBe("\xe9t\xe9");
    expect(got.heads[0]?.rawHeaders).toEqual(["X-A", "\xa0caf\xe9\xa0", "Content-Length", "0"]);
    // A no-break space is no OWS: "5\xa0" is no length (String.trim made it 5).
    expect(() => read("HTTP/1.1 200 OK\r\nContent-Length: 5\xa0\r\n\r\nhello")).toThrow(
      AnswerError,
    );
  });

  it("reads a value of 60 KiB of spaces before a letter in linear time", () => {
    // Counted, not timed: the spaces are taken off by a loop, one look per character. An
    // expression that backtracks on the whole value (`/[ \t]+$/` was quadratic here) is
    // refused before it runs, by pattern-safety's cost model.
    const { result: got, runs } = countRegexRuns(
      () => read(`HTTP/1.1 200 OK\r\nX-A: ${" ".repeat(60_000)}x\r\nContent-Length: 0\r\n\r\n`),
      beyondStepBudget,
    );
    expect(got.heads[0]?.rawHeaders[1]).toBe("x");
    expect(runs.filter(beyondStepBudget)).toEqual([]);
  });
});

describe("the heads the reader keeps (issue #43: not read again per answer)", () => {
  const PING = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2";

  it("gives the same frozen head for the same text, and each text its own", () => {
    const first = readHead(PING);
    expect(readHead(PING)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.answer)).toBe(true);
    expect(Object.isFrozen(first.answer.rawHeaders)).toBe(true);
    const other = readHead(PING.replace("Length: 2", "Length: 3"));
    expect([other.contentLength, first.contentLength]).toEqual([3, 2]);
    // Two answers with the same head each get their own body and end.
    const text = `${PING}\r\n\r\n{}`;
    expect([read(text), read(text)].map((r) => [r.heads[0]?.status, r.body, r.ends])).toEqual([
      [200, "{}", 1],
      [200, "{}", 1],
    ]);
  });

  it("refuses a malformed head each time it comes (no refusal is kept as a head)", () => {
    const bad = "HTTP/1.1 200 OK\r\nX-A: a\x7fb\r\nContent-Length: 0";
    for (let i = 0; i < 3; i++) expect(() => readHead(bad)).toThrow(AnswerError);
    expect(() => readHead("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x")).toThrow(AnswerError);
  });

  it("keeps the most recently used heads: others read meanwhile do not push a busy one out", () => {
    const busy = readHead(PING);
    for (let i = 0; i < KEPT_HEADS * 3; i++) {
      readHead(`HTTP/1.1 200 OK\r\nX-Count: ${i}\r\nContent-Length: 0`);
      if (i % (KEPT_HEADS - 1) === 0) expect(readHead(PING)).toBe(busy);
    }
    // One not used for more than KEPT_HEADS others is read again (a new object, equal).
    for (let i = 0; i < KEPT_HEADS; i++) readHead(`HTTP/1.1 204 No Content\r\nX-N: ${i}`);
    const again = readHead(PING);
    expect(again).not.toBe(busy);
    expect(again).toEqual(busy);
  });
});
