/**
 * Limits OAuth dynamic client registration (`POST /register`, RFC 7591). Anyone may register a
 * client, and every registration is a row in the provider's storage (the `OAuthStore` Durable
 * Object's SQLite, or `OAUTH_KV`): unlimited, a script filled the storage at request speed and
 * its rows were never taken back. Registration is counted per address within an hour
 * (`OAUTH_REGISTRATIONS_PER_HOUR`, default 10: ../config/setting-table.ts) and in total within a
 * day (`OAUTH_REGISTRATIONS_PER_DAY`, default 1000), so storage grows by at most
 * that many rows a day whatever the callers' addresses.
 *
 * Storage: the `OAuthStore` counters (`countAttempt`, one step no other call interleaves with, so
 * a burst is counted as it comes): `register:addr:<address>` (an IPv6 address by its /64, as
 * for passphrases; a request without `CF-Connecting-IP`, which Cloudflare and the local server's
 * front always set, is counted in the total only) and `register:all`: one total for the storage,
 * whatever the origin. Kept per origin before, the total was as many totals as Host headers the
 * Worker accepts (every port of localhost, every `*.workers.dev` name on the local server, every
 * subdomain of a wildcard route), while every client lands in the same storage.
 * A registration is counted before the provider checks it, so malformed ones count too.
 *
 * Does not do: take back clients registered and never used (the provider keeps them); an
 * operator who reaches the total cap raises it or waits the day out.
 */
import { HttpError } from "../errors/http-error";
import { addressKey } from "./address-key";
import type { OAuthStore } from "./oauth-store";

/** The per-address window. */
export const HOUR_MS = 60 * 60_000;
/** The total's window. */
export const DAY_MS = 24 * HOUR_MS;

/** The limits in force (settings, or the defaults). */
export interface RegistrationLimits {
  perHour: number;
  perDay: number;
}

/**
 * Counts one registration, or throws `429 too_many_registrations` with `Retry-After` when the
 * address's hour or the Worker's day is full (nothing is counted then).
 * @param store - the `OAUTH_STORE` binding
 * @param request - the `POST /register` request (its `CF-Connecting-IP`)
 * @param limits - per address per hour, in total per day
 */
export async function countRegistration(
  store: DurableObjectNamespace<OAuthStore>,
  request: Request,
  limits: RegistrationLimits,
): Promise<void> {
  const stub = store.get(store.idFromName("oauth"));
  // Cloudflare (and the local server's front) always set the address; without it (wrangler dev,
  // a service binding) only the total applies.
  const ip = request.headers.get("cf-connecting-ip");
  const own = ip ? [`register:addr:${addressKey(ip)}`] : [];
  const all = ["register:all"];
  const perAddress =
    own.length > 0 ? await stub.countAttempt(own, limits.perHour, HOUR_MS) : { waitMs: 0 };
  if (perAddress.waitMs > 0)
    throw refusal(
      perAddress.waitMs,
      `Too many client registrations from this address: at most ${limits.perHour} an hour.`,
      "Register once and keep the client id (an MCP client does this by itself); the operator can raise OAUTH_REGISTRATIONS_PER_HOUR.",
    );
  const total = await stub.countAttempt(all, limits.perDay, DAY_MS);
  if (total.waitMs > 0) {
    // This one was not registered: its address keeps its budget.
    if (own.length > 0) await stub.uncountAttempt(own);
    throw refusal(
      total.waitMs,
      `Too many client registrations on this server today: at most ${limits.perDay} a day in total.`,
      "Try again later; the operator can raise OAUTH_REGISTRATIONS_PER_DAY.",
    );
  }
}

function refusal(waitMs: number, message: string, fix: string): HttpError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new HttpError(429, "too_many_registrations", message, fix, {
    "retry-after": String(seconds),
  });
}
