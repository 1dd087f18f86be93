// Issue #40, "60 guesses … are limited as through the front": an attacker guesses the owner's
// OAuth passphrase through the local server's public port (`npm start` with OAUTH=on), each
// guess from a newly registered client and with a new forged client address (CF-Connecting-IP,
// X-Forwarded-For, X-Real-IP, True-Client-IP) and from a new real source address (127.0.x.y:
// any address of 127.0.0.0/8 reaches the front on 127.0.0.1; before attack17 each was a
// per-address count of its own, and 60 of 60 guesses were checked), so that neither the
// per-client nor a per-address count it could choose would ever fill. The workers test (test/workers/app/oauth/oauth.test.ts)
// proves the limiter given the address; this proves the real process tree gives it the address
// the connection came from, whatever the request says, and holds under a concurrent burst:
// - a burst of 30 guesses at once: 5 are checked, none grants (before the limiter counted in one
//   atomic step, src/app/oauth/attempt-limiter.ts, all 30 were checked);
// - then 30 one after another, the last with the right passphrase: none is checked (all 429 with
//   Retry-After), none grants a code.
import { request } from "node:http";
import { beginGrant, submitConsent } from "./support/oauth-grant.mjs";
import { check, withServer } from "./support/server.mjs";

const PASSWORD = "e2e oauth guesses correct horse battery staple";
const REDIRECT_URI = "http://127.0.0.1:9999/callback";
/** How many wrong guesses may be checked per client and per address (MAX_FAILURES). */
const BURST_CHECKED_AT_MOST = 5;

/**
 * A `fetch` for this script's requests whose connection is made from `localAddress` (each
 * request a connection of its own; a redirect is never followed).
 * @param {string} localAddress
 * @returns {typeof fetch}
 */
const fetchFrom = (localAddress) =>
  /** @type {typeof fetch} */ (
    (url, init = {}) =>
      new Promise((resolve, reject) => {
        const body = init.body === undefined ? "" : String(init.body);
        const headers = /** @type {Record<string, string>} */ ({ ...init.headers });
        if (init.body instanceof URLSearchParams)
          headers["content-type"] = "application/x-www-form-urlencoded";
        const sent = request(
          String(url),
          { method: init.method ?? "GET", headers, localAddress, agent: false },
          (res) => {
            /** @type {Buffer[]} */
            const chunks = [];
            res.on("data", (chunk) => chunks.push(chunk));
            res.on("error", reject);
            res.on("end", () => {
              const answer = new Headers();
              for (const [name, value] of Object.entries(res.headers))
                if (typeof value === "string") answer.set(name, value);
              resolve(
                new Response(Buffer.concat(chunks), {
                  status: res.statusCode ?? 0,
                  headers: answer,
                }),
              );
            });
          },
        );
        sent.on("error", reject);
        sent.end(body);
      })
  );

/**
 * One guess, as a new client from a new address (a real source address of 127.0.0.0/8, and a
 * forged one in every header) would make it.
 * @param {string} url - the server
 * @param {number} i - the guess's number (its forged address)
 * @param {string} passphrase
 * @returns {Promise<{ status: number, location: string | null, retryAfter: string | null }>}
 */
async function guess(url, i, passphrase) {
  const forged = `203.0.${Math.floor(i / 250)}.${(i % 250) + 1}`;
  const spoof = {
    "cf-connecting-ip": forged,
    "x-forwarded-for": forged,
    "x-real-ip": forged,
    "true-client-ip": forged,
  };
  const send = fetchFrom(`127.0.${Math.floor(i / 250) + 1}.${(i % 250) + 2}`);
  const begun = await beginGrant(url, {
    clientName: `guesser ${i}`,
    redirectUri: REDIRECT_URI,
    headers: spoof,
    send,
  });
  const answer = await submitConsent(begun, { user: "mallory", passphrase }, spoof, send);
  await answer.arrayBuffer();
  return {
    status: answer.status,
    location: answer.headers.get("location"),
    retryAfter: answer.headers.get("retry-after"),
  };
}

/** @param {{ status: number }[]} answers @returns {Record<number, number>} count by status */
const byStatus = (answers) =>
  answers.reduce(
    (counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }),
    /** @type {Record<number, number>} */ ({}),
  );

// Each guess registers a new client from the front's one address: more than the default
// registrations per address per hour (registration-limiter.ts), which this scenario is not about.
await withServer(
  { OAUTH: "on", OAUTH_PASSWORD: PASSWORD, OAUTH_REGISTRATIONS_PER_HOUR: "200" },
  async ({ url }) => {
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => guess(url, i, `wrong guess ${i}`)),
    );
    const counts = byStatus(burst);
    console.log(`e2e oauth-guesses: a burst of 30 guesses at once: ${JSON.stringify(counts)}`);
    check(
      burst.every((a) => a.status === 401 || a.status === 429),
      `a burst guess got something other than 401 or 429: ${JSON.stringify(counts)}`,
    );
    check(
      (counts[401] ?? 0) <= BURST_CHECKED_AT_MOST,
      `${counts[401]} of 30 burst guesses were checked (at most ${BURST_CHECKED_AT_MOST}): new clients and forged addresses got budgets of their own`,
    );

    const sequential = [];
    for (let i = 30; i < 60; i++)
      sequential.push(await guess(url, i, i === 59 ? PASSWORD : `wrong guess ${i}`));
    const later = byStatus(sequential);
    console.log(`e2e oauth-guesses: then 30 one by one, the last right: ${JSON.stringify(later)}`);
    check(
      sequential.every((a) => a.status === 429 && Number(a.retryAfter) > 0),
      `after the burst, a guess was checked: ${JSON.stringify(later)}`,
    );
    check(
      sequential.every((a) => !a.location?.includes("code=")),
      "the right passphrase, sent 60th, got an authorization code",
    );
    console.log(
      `e2e oauth-guesses: ok: ${counts[401] ?? 0} of 60 guesses checked, none granted; the 60th (right) one got 429`,
    );
  },
);
