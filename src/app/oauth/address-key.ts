/**
 * One client's address as the limits count it (src/app/oauth/attempt-limiter.ts,
 * registration-limiter.ts and the placement caller, src/app/placement-caller.ts): a limit keyed by
 * something one host holds many of limits nothing.
 */

/**
 * The address a client is counted by (consent attempts, registrations, runs placed on the local
 * runners): an IPv4 address as it is, an IPv6 one by its /64 prefix. One IPv6 host usually holds
 * a whole /64 (a cloud VM gets 2^64 addresses), so counted per full address, an attacker who
 * registers a new client per guess and sends each from another address of its /64 had every
 * guess checked: no limit at all (and, named so for placement, was a new caller per run, past
 * the cap on runners one caller may use). An IPv4 address mapped into IPv6 (`::ffff:192.0.2.1`)
 * counts as the IPv4 address.
 * @param address - `CF-Connecting-IP` (absent: "unknown", shared by all)
 */
export function addressKey(address: string): string {
  const ip = address.trim().toLowerCase().split("%")[0]!;
  if (!ip.includes(":")) return ip.slice(0, 64);
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = ip.split("::", 2);
  const groups = head === "" ? [] : head.split(":");
  if (tail !== undefined) {
    const rest = tail === "" ? [] : tail.split(":");
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - rest.length)).fill("0"), ...rest);
  }
  const prefix = groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, "").slice(0, 4));
  return `${prefix.join(":")}::/64`;
}
