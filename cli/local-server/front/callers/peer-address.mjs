/**
 * What the front knows of a client from its connection alone: the peer's address, as Node gives
 * it (`socket.remoteAddress`). A server listening on both families reports an IPv4 client as
 * `::ffff:127.0.0.1`, one listening on IPv4 as `127.0.0.1`: the same client must get the same
 * key either way, and its socket is found in /proc/net/tcp under the IPv4 form (proc-net-tcp.mjs),
 * so addresses are normalised to the IPv4 form first. Loopback peers are processes of this machine,
 * all at one address: their identity is the process holding the client's end (peer-owners.mjs).
 */
import { isIPv4, isIPv6 } from "node:net";

/**
 * The address's bytes (4 for IPv4, 16 for IPv6; a zone `%eth0` is dropped), or undefined when it
 * is not an IP address.
 * @param {string} address
 * @returns {Uint8Array | undefined}
 */
export function ipBytes(address) {
  if (isIPv4(address)) return Uint8Array.from(address.split(".").map(Number));
  const zone = address.indexOf("%");
  let text = zone >= 0 ? address.slice(0, zone) : address;
  if (!isIPv6(text)) return undefined;
  // An IPv4 tail (`::ffff:1.2.3.4`) is two more 16-bit groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    const high = ((a ?? 0) << 8) | (b ?? 0);
    const low = ((c ?? 0) << 8) | (d ?? 0);
    text = `${text.slice(0, dotted.index)}${high.toString(16)}:${low.toString(16)}`;
  }
  const [left = "", right] = text.split("::");
  const groups = (part = "") => (part === "" ? [] : part.split(":"));
  const head = groups(left);
  const tail = groups(right);
  const all =
    right === undefined
      ? head
      : [...head, ...Array(8 - head.length - tail.length).fill("0"), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

/**
 * The address in one form per host: an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) as its
 * IPv4 form; any other address as given.
 * @param {string} address
 * @returns {string}
 */
export function normalAddress(address) {
  const bytes = ipBytes(address);
  if (bytes?.length !== 16) return address;
  const mapped =
    bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? [...bytes.subarray(12)].join(".") : address;
}

/**
 * Whether the address is a loopback one (127.0.0.0/8, `::1`, or their mapped forms): its
 * connection came from a process of this machine (of this network namespace).
 * @param {string} address
 * @returns {boolean}
 */
export function isLoopback(address) {
  const bytes = ipBytes(normalAddress(address));
  if (!bytes) return false;
  if (bytes.length === 4) return bytes[0] === 127;
  return bytes.subarray(0, 15).every((b) => b === 0) && bytes[15] === 1;
}
