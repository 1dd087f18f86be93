// Limits OAuth client registration (/register): anyone may register a client, and each one is a
// write to OAUTH_KV that is never taken back, so without a limit a script fills the namespace
// (and its write quota) at request speed. Registrations are counted per address per hour
// (OAUTH_REGISTRATIONS_PER_HOUR, default 10) and in total per day (OAUTH_REGISTRATIONS_PER_DAY,
// default 1000), in the CONSENT_ATTEMPTS Durable Object, before the registration is stored; past
// either, the answer is 429 with Retry-After, naming the setting. The address is
// CF-Connecting-IP (an IPv6 address by its /64, see addressKey); without it (`npm run dev`) only
// the total applies. MCP clients register once and keep their client id.
import { addressKey } from "./attempt-limiter";

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/** A setting's whole number, or its default when unset or not one. */
function setting(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n >= 1 ? n : fallback;
}

/**
 * Counts one registration: undefined when it may go on, else the 429 to answer.
 * @param request - the POST /register request
 * @param env - the Worker's bindings and vars
 */
export async function limitRegistration(
  request: Request,
  env: Cloudflare.Env,
): Promise<Response | undefined> {
  const counters = env.CONSENT_ATTEMPTS.get(env.CONSENT_ATTEMPTS.idFromName("consent"));
  const ip = request.headers.get("cf-connecting-ip");
  const perHour = setting(env.OAUTH_REGISTRATIONS_PER_HOUR, 10);
  const perDay = setting(env.OAUTH_REGISTRATIONS_PER_DAY, 1000);
  if (ip) {
    const wait = await counters.countWithin(`register:${addressKey(ip)}`, perHour, HOUR_MS);
    if (wait > 0)
      return refused(
        wait,
        `Too many client registrations from this address: at most ${perHour} an hour. Register once and keep the client id; the owner can raise OAUTH_REGISTRATIONS_PER_HOUR.`,
      );
  }
  const wait = await counters.countWithin("register:all", perDay, DAY_MS);
  if (wait > 0)
    return refused(
      wait,
      `Too many client registrations today: at most ${perDay} a day in total. Try again later; the owner can raise OAUTH_REGISTRATIONS_PER_DAY.`,
    );
  return undefined;
}

/** The 429 in RFC 7591's error shape, with Retry-After. */
function refused(waitMs: number, description: string): Response {
  return Response.json(
    { error: "too_many_registrations", error_description: description },
    { status: 429, headers: { "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))) } },
  );
}
