// Starts the product the way a user does (`npm start`) and checks it answers on 127.0.0.1:8787.
// Used by CI; exits non-zero with the server's output when it does not come up in time.
import { spawn } from "node:child_process";

const url = "http://127.0.0.1:8787/health";
const child = spawn("npm", ["start"], {
  stdio: ["ignore", "pipe", "pipe"],
  detached: true,
  env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
});
let output = "";
child.stdout.on("data", (d) => (output += d));
child.stderr.on("data", (d) => (output += d));

const stop = () => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
};

const deadline = Date.now() + 60_000;
let ok = false;
while (Date.now() < deadline) {
  try {
    const res = await fetch(url);
    if (res.ok) {
      console.log(`smoke-start: ${url} answered ${res.status} ${await res.text()}`);
      ok = true;
      break;
    }
  } catch {
    // not up yet
  }
  await new Promise((r) => setTimeout(r, 500));
}
stop();
if (!ok) {
  console.error(`smoke-start: ${url} did not answer within 60 s. Server output:\n${output}`);
  process.exit(1);
}
