/**
 * The head the front writes to a runtime for a client's request, by hand on its kept-alive
 * connection (exchange.mjs) or before an upgrade's bytes (front.mjs): which of the client's
 * headers go on, which the front sets itself (the body's length, the client's address, the
 * cluster secret), and the checks that nothing in it could end a line and smuggle a second
 * request.
 */
import { CLUSTER_SECRET_HEADER, clusterSecret, LOCAL_CALLER_HEADER } from "../cluster-secret.mjs";
import { SUPERVISOR_SECRET_HEADER } from "../runners/host-forget-request.mjs";
import { BRIDGE_HEADER } from "./bridge-only.mjs";

/**
 * Request headers the front sets itself: the body's framing (it sends the body whole, with its
 * length), the client's address, its caller (the local process at the other end of its
 * connection: callers/peer-owners.mjs) and the cluster secret (a client's own is dropped: a
 * client that chose its caller could take another process's share of the runners, or a new one
 * per request). And the
 * `--stdio` bridge's secret, the front's alone to check (bridge-only.mjs): never passed on. And
 * the supervisor's own secret header (runners/host-forget-request.mjs): no client can know its
 * value, but a client's copy is dropped all the same, so only the supervisor ever sends one.
 */
const SET_BY_FRONT = new Set([
  "content-length",
  "transfer-encoding",
  "cf-connecting-ip",
  LOCAL_CALLER_HEADER,
  CLUSTER_SECRET_HEADER,
  SUPERVISOR_SECRET_HEADER,
  BRIDGE_HEADER,
]);
/**
 * Hop-by-hop request headers (RFC 9110 §7.6.1): they speak of the client's connection to the
 * front, not of the front's own kept-alive connection to the runtime, so none is passed on,
 * nor any header a client names in its `Connection` header. A client's `Connection: close`
 * closed the front's pooled connection, `Upgrade: h2c` asked workerd to switch protocols on
 * it, and `Connection: …, x-local-cluster-secret` asked any hop that honours the list to drop
 * the front's own secret. `Expect: 100-continue` was answered by the front's own server (it
 * reads the body whole before passing the request on); `Proxy-*` is the front's to read, and
 * it reads none.
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
  "expect",
]);

/**
 * The head the runtime gets for `req`: its method, target, and every header as the client sent
 * it (name case and order kept) but those the front sets itself (SET_BY_FRONT) and the
 * hop-by-hop ones (HOP_BY_HOP and the names `Connection` lists), then the body's
 * length, the client's address and caller, and the cluster secret. Undefined when a part holds a
 * byte that could end a line (Node's parser lets none through; checked again here, where the head
 * is written by hand, so that nothing could be smuggled into a second request).
 * @param {import("node:http").IncomingMessage} req
 * @param {number} bodyLength
 * @param {string} [caller] - who the request is from (callers/peer-owners.mjs keys; "": none named)
 * @returns {string | undefined}
 */
export function requestHead(req, bodyLength, caller = "") {
  const method = req.method ?? "GET";
  const target = req.url ?? "/";
  if (!TOKEN.test(method) || !TARGET.test(target)) return undefined;
  let head = `${method} ${target} HTTP/1.1\r\n`;
  const raw = req.rawHeaders;
  const listed = connectionListed(req.headers?.connection);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = /** @type {string} */ (raw[i]);
    const value = /** @type {string} */ (raw[i + 1]);
    const lower = name.toLowerCase();
    if (SET_BY_FRONT.has(lower) || HOP_BY_HOP.has(lower) || listed?.has(lower)) continue;
    if (!TOKEN.test(name) || NOT_IN_VALUE.test(value)) return undefined;
    head += `${name}: ${value}\r\n`;
  }
  if (bodyLength > 0 || (method !== "GET" && method !== "HEAD"))
    head += `Content-Length: ${bodyLength}\r\n`;
  // The client's address, as Cloudflare's edge sets it (replacing any the client sent): the
  // consent page's attempt limit counts guesses per address (src/app/oauth/attempt-limiter.ts).
  // A client's own header used to reach the Worker, so it could choose its count's key.
  const address = clientAddress(req.socket.remoteAddress);
  if (address && !NOT_IN_VALUE.test(address)) head += `CF-Connecting-IP: ${address}\r\n`;
  // Who the caller is: the host places runs by it (src/app/placement-caller.ts), so one local
  // process cannot take every runner from another; every local client has the address above.
  head += callerLine(caller);
  // The runtime serves only the server's own processes (cluster-secret.mjs); it trusts the
  // address above because this comes with it.
  return `${head}${CLUSTER_SECRET_HEADER}: ${clusterSecret}\r\n\r\n`;
}

/**
 * The caller's header line ({@link LOCAL_CALLER_HEADER}), or "" when no caller is named or the
 * key is not one the front makes (visible ASCII, short): never a line the host could misread.
 * @param {string} caller
 */
export function callerLine(caller) {
  return CALLER_KEY.test(caller) ? `${LOCAL_CALLER_NAME}: ${caller}\r\n` : "";
}

/** A caller's key as callers/peer-owners.mjs makes them (`process:123`, `address:::1`, …). */
const CALLER_KEY = /^[\x21-\x7e]{1,100}$/;
/** The caller header's name as written (the constant is lower-case, as Node reads names). */
const LOCAL_CALLER_NAME = "X-Local-Caller";

/**
 * The header names a client's `Connection` header lists (all its lines, as Node joins them),
 * lower-cased; undefined when it lists none but the usual options. `Host` is never dropped: the
 * Worker's checks read it, and the front checked it already.
 * @param {string | undefined} connection
 * @returns {Set<string> | undefined}
 */
function connectionListed(connection) {
  if (connection === undefined) return undefined;
  const names = connection.toLowerCase().split(",");
  /** @type {Set<string> | undefined} */
  let listed;
  for (const entry of names) {
    const name = entry.trim();
    if (name === "" || name === "keep-alive" || name === "close" || name === "host") continue;
    (listed ??= new Set()).add(name);
  }
  return listed;
}

/**
 * The header lines the runtime gets for an upgrade (a WebSocket's handshake, piped byte for byte
 * after it): every header as the client sent it but those the front sets itself and the
 * hop-by-hop ones, as {@link requestHead} drops them, except the two an upgrade is made of:
 * `Upgrade` as sent, and `Connection` sent again as just `Upgrade` (so no name the client listed
 * in it is dropped by the runtime's parser on the front's behalf or kept by mistake).
 * @param {import("node:http").IncomingMessage} req
 * @returns {string[]} `Name: value` lines, without the front's own (address, secret)
 */
export function upgradeHeaderLines(req) {
  const raw = req.rawHeaders;
  const listed = connectionListed(req.headers?.connection);
  /** @type {string[]} */
  const lines = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = /** @type {string} */ (raw[i]);
    const lower = name.toLowerCase();
    if (lower === "upgrade") {
      lines.push(`${name}: ${raw[i + 1]}`);
      continue;
    }
    if (SET_BY_FRONT.has(lower) || HOP_BY_HOP.has(lower) || listed?.has(lower)) continue;
    lines.push(`${name}: ${raw[i + 1]}`);
  }
  lines.push("Connection: Upgrade");
  return lines;
}

/** An HTTP token (a method, a header's name). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A request target: visible ASCII and bytes past it, nothing that ends a line or the target. */
const TARGET = /^[\x21-\x7e\x80-\xff]+$/;
/** What a header value may not hold: control characters but tab (CR, LF, NUL among them). */
// oxlint-disable-next-line no-control-regex -- control characters are what it looks for
const NOT_IN_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * The address the runtime is told a client's connection came from (`CF-Connecting-IP`), as
 * Cloudflare writes one (an IPv4 client on a dual-stack socket, `::ffff:192.0.2.7`, as plain
 * IPv4), except that every loopback address is told as one, `127.0.0.1`: this machine. A process
 * may bind its socket to any address of 127.0.0.0/8 before it connects to the front on
 * 127.0.0.1, and each was an address of its own to every limit keyed by it (the consent page's
 * wrong passphrases and the client registrations, src/app/oauth/), so another user's 60 guesses
 * from 127.0.1.2, 127.0.1.3, … were all checked, where 5 from one address are (attack17). A
 * connection from another address (the machine's own LAN address, bound on purpose; a client a
 * NAT rule brings to 127.0.0.1) keeps it: a machine holds a few such addresses, not 16 million.
 * @param {string | undefined} address - the connection's remote address
 * @returns {string | undefined}
 */
export function clientAddress(address) {
  if (address === undefined) return undefined;
  const v4 = address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
  return v4.startsWith("127.") || v4 === "::1" ? THIS_MACHINE : v4;
}

/** How every client of this machine is told to the runtime. */
const THIS_MACHINE = "127.0.0.1";
