// Issue #44 (skills), with real MCP clients over `npm start`: an SDK v2 client saves a skill from
// a successful run; a save from a failed run and one with a free variable are refused; version 2
// is saved; `npm start` is restarted with the same state folder; an SDK v1 client's program calls
// the skill with typed input and an invalid input is refused before it runs; the CLI rolls back
// to version 1, runs use 1 and the run history names it; an operator skill from SKILLS_DIR is
// callable and cannot be overwritten; the CLI exports, a fresh server imports, the calls give the
// same answers; a malformed SKILL.md is refused naming the problem; two OAuth users (real
// grants) see and call only their own skills and both call the operator's, read-only.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { beginGrant, redeemCode, submitConsent } from "./support/oauth-grant.mjs";
import { text } from "./support/programs.mjs";
import { check, startServer } from "./support/server.mjs";

const BIN = fileURLToPath(new URL("../../bin/code-mode-mcp.mjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "codemode-skills-"));
const persist = join(work, "state");
const exported = join(work, "exported");
const operator = join(work, "operator");
mkdirSync(join(operator, "double", "scripts"), { recursive: true });
writeFileSync(
  join(operator, "double", "SKILL.md"),
  `---\nname: double\ndescription: Doubles n (the operator's).\n---\n\n# double\n\n## Input schema\n\n\`\`\`json\n{ "type": "object", "properties": { "n": { "type": "number" } }, "required": ["n"] }\n\`\`\`\n`,
);
writeFileSync(join(operator, "double", "scripts", "double.js"), "async ({ n }) => n * 2\n");

/**
 * Blocked task titles of projects of a status, over the demo upstream (`version` marks it).
 * @param {number} version
 */
const saving = (version) => `async () => {
  const blockedIn = async ({ status }) => {
    const projects = await codemode.list_projects({ status });
    const out = [];
    for (const p of projects.items) {
      const { items } = await codemode.list_tasks({ projectId: p.id, status: "blocked" });
      out.push(...items.map((t) => p.name + ": " + t.title));
    }
    return { version: ${version}, blocked: out.sort() };
  };
  const answer = await blockedIn({ status: "active" });
  await skills.save({
    name: "blockedIn",
    description: "Blocked task titles of the projects of a status, as 'project: title'.",
    input: { type: "object", properties: { status: { enum: ["active", "archived"] } }, required: ["status"] },
    run: blockedIn,
  });
  return answer;
}`;

/** @param {string} url @param {"v1" | "v2"} sdk @param {string} [token] an OAuth access token */
async function open(url, sdk, token) {
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : {};
  if (sdk === "v1") {
    const client = new V1Client({ name: "e2e-skills-v1", version: "1.0.0" });
    await client.connect(new V1Transport(new URL(`${url}/mcp/code`), { requestInit }));
    return client;
  }
  const client = new V2Client(
    { name: "e2e-skills-v2", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new V2Transport(new URL(`${url}/mcp/code`), { requestInit }));
  return client;
}

/** One `code` call over a fresh client. @param {string} url @param {string} code @param {"v1" | "v2"} [sdk] @param {string} [token] */
async function run(url, code, sdk = "v2", token) {
  const client = await open(url, sdk, token);
  try {
    return /** @type {any} */ (await client.callTool({ name: "code", arguments: { code } }));
  } finally {
    await client.close();
  }
}

/** The CLI's skills command against `url`. @param {string} url @param {string[]} args */
function cli(url, args) {
  const done = spawnSync(process.execPath, [BIN, "skills", ...args, "--url", url], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: done.status, out: done.stdout, err: done.stderr };
}

const port = String(await freePort());
const CALL = `async () => skills.blockedIn({ status: "active" })`;
let answerV1 = "";
let server = await startServer({ PORT: port, PERSIST_TO: persist, SKILLS_DIR: operator });
try {
  check(
    server.output().includes("1 operator skill(s)"),
    `the start names the operator skills:\n${server.output()}`,
  );
  const saved = await run(server.url, saving(1));
  const first = text(saved);
  check(!saved.isError && JSON.parse(first).version === 1, `the saving run answered: ${first}`);
  check(
    saved.content.at(-1).text ===
      'Saved skill "blockedIn" as version 1: later programs call it as skills.blockedIn(input).',
    `the save is confirmed: ${JSON.stringify(saved.content)}`,
  );
  const failed = await run(
    server.url,
    saving(9).replace("return answer;", "throw new Error('no');"),
  );
  check(
    failed.isError &&
      /Skill "blockedIn" was not saved: the run ended with error/.test(failed.content.at(-1).text),
    `a failed run does not save: ${JSON.stringify(failed.content)}`,
  );
  const free = await run(
    server.url,
    `async () => { const base = 1; await skills.save({ name: "plusBase", description: "d", input: { type: "object" }, run: async () => base }); }`,
  );
  check(
    free.isError && /Skill "plusBase" uses `base`, defined outside its function/.test(text(free)),
    `a free variable is named: ${text(free)}`,
  );
  check(!JSON.parse(text(await run(server.url, saving(2)))).error, "version 2 saved");
  console.log("e2e skills: saved from a successful run; failed run and free variable refused — ok");
} finally {
  await server.stop();
}

// The same state folder: the skills are still there for a new client (SDK v1 this time).
server = await startServer({ PORT: port, PERSIST_TO: persist, SKILLS_DIR: operator });
try {
  const client = await open(server.url, "v1");
  const description = (await client.listTools()).tools[0]?.description ?? "";
  await client.close();
  check(
    description.includes("- blockedIn: Blocked task titles of the projects of a status") &&
      description.includes("- double: Doubles n"),
    `the code tool lists the skills:\n${description}`,
  );
  const v2 = await run(server.url, CALL, "v1");
  check(JSON.parse(text(v2)).version === 2, `after the restart, version 2 runs: ${text(v2)}`);
  const invalid = await run(server.url, `async () => skills.blockedIn({ status: "gone" })`, "v1");
  check(
    invalid.isError &&
      /skills\.blockedIn\(\) got invalid input: input\/status: .*The skill did not run/.test(
        text(invalid),
      ),
    `invalid input refused before the skill runs: ${text(invalid)}`,
  );
  console.log(
    "e2e skills: restarted; an SDK v1 client calls it with typed input; invalid input refused — ok",
  );

  const rolled = cli(server.url, ["rollback", "blockedIn", "1"]);
  check(rolled.status === 0, `skills rollback: ${rolled.out}${rolled.err}`);
  const v1 = await run(
    server.url,
    `async () => { /* after-rollback */ return skills.blockedIn({ status: "active" }); }`,
  );
  check(JSON.parse(text(v1)).version === 1, `after the roll back, version 1 runs: ${text(v1)}`);
  answerV1 = text(v1);
  // The run history names the version that ran (written after the answer: poll).
  let record;
  for (let i = 0; i < 80 && !record; i++) {
    const page = await (await fetch(`${server.url}/api/runs?limit=50`)).json();
    const summary = page.runs.find((/** @type {any} */ r) => r.preview.includes("after-rollback"));
    if (summary) record = await (await fetch(`${server.url}/api/runs/${summary.id}`)).json();
    else await new Promise((r) => setTimeout(r, 250));
  }
  check(
    JSON.stringify(record?.skills) ===
      JSON.stringify([{ name: "blockedIn", version: 1, calls: 1 }]),
    `the run record names version 1: ${JSON.stringify(record?.skills)}`,
  );
  const listed = cli(server.url, ["list"]);
  check(
    listed.status === 0 &&
      /blockedIn {2}v1 \(latest v2\) {2}code only {2}uses \d+/.test(listed.out) &&
      /double {2}v1 {2}read-only/.test(listed.out),
    `skills list: ${listed.out}${listed.err}`,
  );
  console.log(
    "e2e skills: version 2, rolled back to 1: runs use 1 and the run history says so — ok",
  );

  const doubled = await run(server.url, "async () => skills.double({ n: 21 })");
  check(text(doubled) === "42", `the operator's skill runs: ${text(doubled)}`);
  const over = await run(
    server.url,
    `async () => skills.save({ name: "double", description: "mine", input: { type: "object" }, run: async () => 0 })`,
  );
  check(
    over.isError &&
      /read-only skill the operator ships with this server: it cannot be overwritten/.test(
        text(over),
      ),
    `the operator's skill cannot be overwritten: ${text(over)}`,
  );
  console.log("e2e skills: the operator's read-only skill runs and cannot be overwritten — ok");

  const out = cli(server.url, ["export", exported]);
  check(out.status === 0, `skills export: ${out.out}${out.err}`);
  check(
    readFileSync(join(exported, "blockedIn", "SKILL.md"), "utf8").startsWith(
      "---\nname: blockedIn\n",
    ),
    "the export is an Agent Skills folder",
  );
} finally {
  await server.stop();
}

// A fresh server (new state folder, no operator skills): import, then the same answers.
server = await startServer({});
try {
  const broken = join(work, "broken");
  mkdirSync(join(broken, "blockedIn", "scripts"), { recursive: true });
  writeFileSync(join(broken, "blockedIn", "SKILL.md"), "name: blockedIn\n");
  writeFileSync(join(broken, "blockedIn", "scripts", "blockedIn.js"), "async () => 1\n");
  const refused = cli(server.url, ["import", broken]);
  check(
    refused.status === 1 &&
      /Skill folder "blockedIn": SKILL.md does not start with YAML front matter/.test(refused.err),
    `a malformed SKILL.md is refused naming the problem: ${refused.err}`,
  );
  const imported = cli(server.url, ["import", exported]);
  check(
    imported.status === 0 && /Imported blockedIn as version 1/.test(imported.out),
    `skills import: ${imported.out}${imported.err}`,
  );
  const again = await run(server.url, CALL);
  check(
    text(again) === answerV1,
    `the imported skill answers as before: ${text(again)} (was ${answerV1})`,
  );
  console.log(
    "e2e skills: exported, imported into a fresh server, same answers; malformed SKILL.md refused — ok",
  );
} finally {
  await server.stop();
}

// Two OAuth users, each with a real grant (register, consent with OAUTH_PASSWORD, token): each
// sees and calls only their own skills (ana through SDK v1, bob through SDK v2); the operator's
// read-only skill is callable by both and neither can overwrite it.
const PASSWORD = "e2e skills passphrase 0123456789";
const REDIRECT_URI = "http://127.0.0.1:9/callback";
/** @param {string} url @param {string} user @returns {Promise<string>} an access token */
async function grant(url, user) {
  const begun = await beginGrant(url, { clientName: "e2e skills", redirectUri: REDIRECT_URI });
  const approved = await submitConsent(begun, {
    user,
    passphrase: PASSWORD,
    user_passphrase: `${user} own passphrase`,
  });
  check(approved.status === 302, `/authorize for ${user} answered ${approved.status}`);
  const code = new URL(/** @type {string} */ (approved.headers.get("location"))).searchParams.get(
    "code",
  );
  const token = await redeemCode(begun, /** @type {string} */ (code));
  check(token.status === 200, `/token for ${user} answered ${token.status}`);
  return /** @type {{ access_token: string }} */ (await token.json()).access_token;
}

server = await startServer({ OAUTH: "on", OAUTH_PASSWORD: PASSWORD, SKILLS_DIR: operator });
try {
  const ana = await grant(server.url, "ana");
  const bob = await grant(server.url, "bob");
  const saved = await run(server.url, saving(1), "v1", ana);
  check(
    !saved.isError && /Saved skill "blockedIn" as version 1/.test(saved.content.at(-1)?.text),
    `ana saves over SDK v1: ${JSON.stringify(saved.content)}`,
  );
  const byAna = await run(server.url, CALL, "v1", ana);
  check(!byAna.isError && JSON.parse(text(byAna)).version === 1, `ana calls hers: ${text(byAna)}`);
  const byBob = await run(server.url, CALL, "v2", bob);
  check(byBob.isError === true, `bob cannot call ana's skill: ${text(byBob)}`);
  /** @param {string} token */
  const listed = async (token) =>
    (
      await (
        await fetch(`${server.url}/api/skills`, { headers: { authorization: `Bearer ${token}` } })
      ).json()
    ).skills.map((/** @type {{ name: string }} */ s) => s.name);
  check(
    JSON.stringify(await listed(ana)) === JSON.stringify(["blockedIn", "double"]),
    `ana lists hers and the operator's: ${await listed(ana)}`,
  );
  check(
    JSON.stringify(await listed(bob)) === JSON.stringify(["double"]),
    `bob lists only the operator's: ${await listed(bob)}`,
  );
  for (const [token, sdk] of /** @type {const} */ ([
    [ana, "v1"],
    [bob, "v2"],
  ])) {
    const doubled = await run(server.url, "async () => skills.double({ n: 21 })", sdk, token);
    check(text(doubled) === "42", `the operator's skill runs for each user: ${text(doubled)}`);
    const over = await run(
      server.url,
      `async () => skills.save({ name: "double", description: "mine", input: { type: "object" }, run: async () => 0 })`,
      sdk,
      token,
    );
    check(
      over.isError && /read-only skill the operator ships/.test(text(over)),
      `no user overwrites the operator's skill: ${text(over)}`,
    );
  }
  console.log(
    "e2e skills: two OAuth users (real grants, SDK v1 and v2) see and call only their own; the operator's runs for both, read-only — ok",
  );
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
