// A client in a process of its own for the e2e scripts (test/e2e/fair-share.mjs): the server
// tells its callers apart by the local process at the other end of each connection
// (cli/local-server/front/callers/), so a client that must be another caller than the script's
// own clients must be another process. Forked with an IPC channel: `node staller-child.mjs
// <url> <deadline ms>`. It connects, says `{ ready: true }`, then for each `{ round, codes }`
// calls `execute` with every program at once and answers `{ round, outcomes }` once all ended
// (load-clients.mjs `timedCall`: never throws). Bounded: it exits at its deadline, and when its
// parent goes.
import { connect, timedCall } from "./load-clients.mjs";

const [url, deadline] = process.argv.slice(2);
if (!url || !process.send) {
  console.error("staller-child.mjs: forked with an IPC channel, given the server's URL");
  process.exit(2);
}
setTimeout(() => process.exit(3), Number(deadline ?? "300000"));
process.on("disconnect", () => process.exit(0));
const { client } = await connect(url, { name: "e2e-staller" });
process.on(
  "message",
  async (/** @type {{ round?: number, codes?: string[], stop?: true }} */ m) => {
    if (m.stop) {
      await client.close().catch(() => {});
      process.exit(0);
    }
    const outcomes = await Promise.all(
      (m.codes ?? []).map((code) => timedCall(client, "execute", code)),
    );
    process.send?.({ round: m.round, outcomes });
  },
);
process.send({ ready: true });
