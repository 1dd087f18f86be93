/**
 * The `Host` rule of the product, in one place for its two users: the Worker's check in front of
 * every route (allowed-hosts.ts) and the local server's front (cli/local-server/front/front.mjs),
 * which applies it before reading a request's body, so that a name the Worker would refuse
 * cannot make the front hold a body for it (issue #40). Plain JavaScript with no imports: the
 * front runs in Node from the shipped sources, the Worker bundles it.
 */

/**
 * The allowlist used when `ALLOWED_HOSTNAMES` is not set (allowed-hosts.ts says why).
 * @type {readonly string[]}
 */
export const DEFAULT_ALLOWED_HOSTNAMES = Object.freeze([
  "localhost",
  "127.0.0.1",
  "[::1]",
  "*.workers.dev",
]);

/**
 * The hostname a `Host` header names: lower case, without the port (a bracketed IPv6 keeps its
 * brackets).
 * @param {string} host - the header's value
 * @returns {string}
 */
export function hostnameOf(host) {
  const name = host.trim().toLowerCase();
  if (name.startsWith("[")) return name.slice(0, name.indexOf("]") + 1);
  const colon = name.lastIndexOf(":");
  return colon === -1 ? name : name.slice(0, colon);
}

/**
 * Whether `hostname` is on the list (`*.example.com` matches subdomains, not the apex).
 * @param {string} hostname - from {@link hostnameOf}
 * @param {readonly string[]} allowed - the configured list
 * @returns {boolean}
 */
export function hostnameAllowed(hostname, allowed) {
  return allowed.some((entry) =>
    entry.startsWith("*.")
      ? hostname.endsWith(entry.slice(1)) && hostname.length > entry.length - 1
      : hostname === entry,
  );
}

/**
 * The shape of a `Host` header workerd takes: a name of letters, digits, dots, hyphens and
 * underscores, or a bracketed IPv6 address, then an optional port (digits). workerd builds each
 * request's URL from it and answers a bare `500 Internal Server Error`, before the Worker runs,
 * for anything else (`localhost:abc`, `a@localhost`, `localhost/x`, `a!b`, `%6cocalhost`,
 * `é.com`, measured on npm start, issue #40 review); the URL parser then checks what the shape
 * cannot (a port up to 65535, an IPv6 or IPv4 address that is one).
 */
const HOST_SHAPE = /^(?:\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::[0-9]*)?$/i;

/**
 * Whether a `Host` header's value is a host name or address with an optional port, as a URL's
 * host can be (see HOST_SHAPE). An empty one is not.
 * @param {string} host - the header's value (Node trims its surrounding spaces)
 * @returns {boolean}
 */
export function wellFormedHost(host) {
  return HOST_SHAPE.test(host) && URL.canParse(`http://${host}/`);
}

/**
 * The refusal of a `Host` header that is no host ({@link wellFormedHost}): `400`, its code,
 * message and fix.
 * @param {string} host
 * @returns {{ status: 400, code: "invalid_host", message: string, fix: string }}
 */
export function malformedHostRefusal(host) {
  return {
    status: 400,
    code: "invalid_host",
    message: `The Host header ${JSON.stringify(host.slice(0, 253))} is not a host name or address with an optional port.`,
    fix: "Send the server's name and port as the Host, e.g. Host: localhost:8787 (HTTP clients do so from the URL).",
  };
}

/**
 * The refusal of a name that is not on the list: `403`, its code, message and fix, as both the
 * Worker and the front answer it.
 * @param {string} hostname
 * @returns {{ status: 403, code: "forbidden_host", message: string, fix: string }}
 */
export function unknownHostRefusal(hostname) {
  return {
    status: 403,
    code: "forbidden_host",
    message: `This server does not answer to the host name "${hostname.slice(0, 253)}".`,
    fix: "If it should, add that name to the ALLOWED_HOSTNAMES setting.",
  };
}
