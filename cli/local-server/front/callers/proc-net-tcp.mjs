/**
 * The kernel's tables of TCP sockets (Linux: /proc/net/tcp and /proc/net/tcp6), read for one
 * thing: the socket at the CLIENT's end of a connection the front accepted, with the uid that
 * owns it and its inode (what the /proc/<pid>/fd links of its holder name, socket-process.mjs).
 *
 * A line reads `sl: local rem st tx:rx tr:when retrnsmt uid timeout inode …`. An IPv4 address is
 * the 32-bit word in host order as 8 hex digits (`0100007F` is 127.0.0.1 on a little-endian
 * host), an IPv6 one four such words (32 digits), a port 4 hex digits in the usual order. Both
 * ends of a loopback connection are in the table: the client's socket (local = the client's
 * address, remote = the server's) and the front's own (the other way round). Only the first is
 * matched: a key is the two addresses in the client's order, and the front's line has them
 * swapped. Inode 0 is a socket no process holds any more (TIME_WAIT, or closed by its owner).
 *
 * Under a storm of short connections the table holds thousands of TIME_WAIT lines (5,000 lines,
 * 630 KB, on the lead's machine): the lines are not split, each one's address pair is cut at its
 * fixed place and looked up in the set of pairs wanted, and only a line that matches is parsed.
 */
import { ipBytes } from "./peer-address.mjs";

/** Most lines of one table read: the kernel's table is bounded, this bounds our time on it. */
export const TABLE_LINES_MAX = 200_000;

/**
 * One end of a connection: an address in normal form (peer-address.mjs) and a port.
 * @typedef {{ address: string, port: number }} Endpoint
 */
/**
 * A connection the front accepted, from the front's socket: `client` its remote end, `server`
 * its local end.
 * @typedef {{ client: Endpoint, server: Endpoint }} Connection
 */
/**
 * The client's socket as the table shows it: who owns it (`uid`) and its inode (`"0"` when no
 * process holds it).
 * @typedef {{ uid: number, inode: string }} SocketOwner
 */
/**
 * What to look for: the client line's address pair in /proc/net/tcp, in /proc/net/tcp6, or
 * both (an IPv4 client may hold an IPv6 socket, then its line is in tcp6 with mapped addresses).
 * @typedef {{ tcp?: string, tcp6?: string }} LineKeys
 */

/** @param {number} byte */
const hex2 = (byte) => byte.toString(16).toUpperCase().padStart(2, "0");

/**
 * An address as the table writes it: 4-byte words in host order.
 * @param {Uint8Array} bytes - 4 or 16
 * @param {boolean} littleEndian - the host's byte order (os.endianness())
 * @returns {string}
 */
export function tableAddress(bytes, littleEndian) {
  let text = "";
  for (let word = 0; word < bytes.length; word += 4) {
    const four = [...bytes.subarray(word, word + 4)];
    text += (littleEndian ? four.toReversed() : four).map(hex2).join("");
  }
  return text;
}

/**
 * A port as the table writes it.
 * @param {number} port
 * @returns {string}
 */
export function tablePort(port) {
  return port.toString(16).toUpperCase().padStart(4, "0");
}

/** @param {Uint8Array} v4 */
const mapped = (v4) => Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]);

/**
 * The address pairs of the client's line for `connection`: local = the client's end, remote =
 * the server's (never the front's own line, which has them swapped).
 * @param {Connection} connection
 * @param {boolean} littleEndian
 * @returns {LineKeys}
 */
export function clientLineKeys({ client, server }, littleEndian) {
  const from = ipBytes(client.address);
  const to = ipBytes(server.address);
  if (!from || !to || from.length !== to.length) return {};
  /** @param {Uint8Array} a @param {Uint8Array} b */
  const pair = (a, b) =>
    `${tableAddress(a, littleEndian)}:${tablePort(client.port)} ${tableAddress(b, littleEndian)}:${tablePort(server.port)}`;
  if (from.length === 16) return { tcp6: pair(from, to) };
  return { tcp: pair(from, to), tcp6: pair(mapped(from), mapped(to)) };
}

/**
 * The owner of a table line, or undefined for a line that is not one (the header, garbage).
 * @param {string} line
 * @returns {SocketOwner | undefined}
 */
function ownerOf(line) {
  const fields = line.trim().split(/\s+/);
  const uid = fields[7];
  const inode = fields[9];
  if (uid === undefined || inode === undefined || !/^\d+$/.test(uid) || !/^\d+$/.test(inode))
    return undefined;
  return { uid: Number(uid), inode };
}

/**
 * Finds the lines of `text` (one table) whose address pair is one of `keys`.
 * @param {string} text - /proc/net/tcp or /proc/net/tcp6
 * @param {ReadonlySet<string>} keys - pairs from {@link clientLineKeys}
 * @param {number} [maxLines]
 * @returns {Map<string, SocketOwner>} pair to owner; a held socket (inode not 0) wins over one
 *   no process holds, should the pair be in the table twice (a new connection beside an old
 *   TIME_WAIT)
 */
export function findClientSockets(text, keys, maxLines = TABLE_LINES_MAX) {
  /** @type {Map<string, SocketOwner>} */
  const found = new Map();
  if (keys.size === 0) return found;
  const lengths = [...new Set([...keys].map((key) => key.length))];
  let held = 0;
  for (let start = 0, lines = 0; start < text.length && lines < maxLines; lines++) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    // The pair starts right after the line's first ": " (`   0: 0100007F:1F90 …`).
    const colon = text.indexOf(": ", start);
    if (colon >= 0 && colon < end) {
      for (const length of lengths) {
        const key = text.slice(colon + 2, colon + 2 + length);
        if (!keys.has(key) || text.charCodeAt(colon + 2 + length) !== 32) continue;
        const owner = ownerOf(text.slice(start, end));
        const before = found.get(key);
        if (!owner || (before && before.inode !== "0")) continue;
        found.set(key, owner);
        if (owner.inode !== "0") held++;
      }
    }
    if (held === keys.size) break;
    start = end + 1;
  }
  return found;
}
