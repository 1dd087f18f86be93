// The `code-mode-mcp` command line: which command, and the settings its flags stand for. Flags
// are shorthands for the settings `npm start` reads from the environment (SPEC_FILE, API_BASE_URL,
// UPSTREAM_MCP_URL, PORT); credentials are taken from the environment only, since a command line
// shows in process lists, shell history and desktop clients' config files.
import util from "node:util";
import { SKILLS_USAGE } from "./skills.mjs";

/** Flags that stand for a setting (flag → environment variable). */
export const SETTING_FLAGS = /** @type {const} */ ({
  "--spec": "SPEC_FILE",
  "--base-url": "API_BASE_URL",
  "--upstream": "UPSTREAM_MCP_URL",
  "--port": "PORT",
});

/** Every option `node:util` `parseArgs` knows; a value is a string, a switch a boolean. */
const OPTIONS = /** @type {const} */ ({
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
  stdio: { type: "boolean" },
  "dry-run": { type: "boolean" },
  "no-install": { type: "boolean" },
  oauth: { type: "boolean" },
  route: { type: "string" },
  spec: { type: "string" },
  "base-url": { type: "string" },
  upstream: { type: "string" },
  port: { type: "string" },
  name: { type: "string" },
  write: { type: "string" },
  url: { type: "string" },
});

/** The commands; `serve` when none is named. */
const COMMANDS = ["serve", "check", "deploy", "init", "desktop-config", "skills", "help"];

/** A flag that names a credential is refused, whatever its spelling. */
const CREDENTIAL_FLAG = /token|auth|secret|passw|key|credential|bearer|cookie/i;

/**
 * @typedef {object} Parsed
 * @property {"serve" | "check" | "deploy" | "init" | "desktop-config" | "skills" | "help" | "version"} command
 * @property {Record<string, string>} settings - environment variables the flags set
 * @property {boolean} stdio
 * @property {boolean} dryRun
 * @property {boolean} install - init: run npm install (off with --no-install)
 * @property {boolean} oauth - init: protect the endpoints with OAuth instead of an API key
 * @property {string | undefined} route - the MCP route --stdio bridges (/mcp or /mcp/code)
 * @property {string | undefined} name - desktop-config: the server's name in mcpServers
 * @property {string | undefined} write - desktop-config: the client config file to merge into
 * @property {string | undefined} url - skills: the running server's address
 * @property {string[]} positional - check's spec file, init's folder
 * @property {string[]} passThrough - arguments after `--` (deploy passes them to wrangler)
 */

/** @typedef {{ ok: true, parsed: Parsed } | { ok: false, message: string }} ParseResult */

/**
 * Parses the command line, or returns the message that says what is wrong and what to do.
 * `node:util` `parseArgs` splits it into tokens (non-strict, so an unknown or credential flag
 * reaches the checks below and gets its own message); each token is then checked in order, and
 * the command's rules last.
 * @param {string[]} argv - process.argv.slice(2)
 * @returns {ParseResult}
 */
export function parseArgs(argv) {
  /** @type {Parsed} */
  const parsed = {
    command: "serve",
    settings: {},
    stdio: false,
    dryRun: false,
    install: true,
    oauth: false,
    route: undefined,
    name: undefined,
    write: undefined,
    url: undefined,
    positional: [],
    passThrough: [],
  };
  const first = argv[0];
  const args = first !== undefined && COMMANDS.includes(first) ? argv.slice(1) : argv;
  if (args !== argv) parsed.command = /** @type {Parsed["command"]} */ (first);
  // Node before 18.7 has no parseArgs with tokens: there only --help and --version can answer
  // (bin/ then says Node 22 is needed for everything else).
  if (typeof util.parseArgs !== "function") return { ok: true, parsed: oldNodeParse(args, parsed) };
  const { tokens } = util.parseArgs({
    args,
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind === "option-terminator") {
      parsed.passThrough = args.slice(token.index + 1);
      break;
    }
    if (token.kind === "positional") parsed.positional.push(token.value);
    else {
      const refused = applyOption(parsed, token.rawName, token.value);
      if (refused !== undefined) return { ok: false, message: refused };
    }
  }
  return commandRules(parsed);
}

/**
 * Applies one option to `parsed`.
 * @param {Parsed} parsed
 * @param {string} flag - as typed (`--spec`, `-h`)
 * @param {string | undefined} value - its value (`--spec x`, `--spec=x`), if any
 * @returns {string | undefined} the refusal, if the option is refused
 */
function applyOption(parsed, flag, value) {
  const name = flag.replace(/^--?/, "");
  const known = Object.hasOwn(OPTIONS, name) || (flag.length === 2 && "hv".includes(name));
  if (!known && CREDENTIAL_FLAG.test(flag))
    return `${flag}: credentials are never taken from flags (a command line shows in process lists, shell history and client config files).\n  Fix: set it in the environment instead: API_TOKEN (the API's credential), UPSTREAM_MCP_AUTH (the upstream MCP server's), MCP_API_KEY (the key clients must send to this server), e.g. API_TOKEN=… npx code-mode-mcp serve --spec ./openapi.yaml`;
  if (!known) {
    const near = closestFlag(flag);
    return `${flag}: unknown option.${near ? ` Did you mean ${near}?` : ""}\n  Fix: see npx code-mode-mcp --help (other settings come from the environment, as for npm start).`;
  }
  const option =
    OPTIONS[
      /** @type {keyof typeof OPTIONS} */ (
        name.length === 1 ? { h: "help", v: "version" }[name] : name
      )
    ];
  if (option.type === "boolean") {
    if (value !== undefined)
      return `${flag} takes no value (got "${value}").\n  Fix: ${flag} alone.`;
    if (name === "help" || name === "h") parsed.command = "help";
    else if (name === "version" || name === "v") parsed.command = "version";
    else if (name === "stdio") parsed.stdio = true;
    else if (name === "dry-run") parsed.dryRun = true;
    else if (name === "oauth") parsed.oauth = true;
    else parsed.install = false;
    return undefined;
  }
  if (value === undefined || value === "" || value.startsWith("--"))
    return `${flag} needs a value.\n  Fix: see npx code-mode-mcp --help`;
  if (flag === "--route") {
    if (value !== "/mcp" && value !== "/mcp/code")
      return `--route: "${value}" is not an MCP route.\n  Fix: --route /mcp (the OpenAPI tools) or --route /mcp/code (the upstream MCP servers' code tool)`;
    parsed.route = value;
    return undefined;
  }
  if (flag === "--name" || flag === "--write") {
    parsed[flag === "--name" ? "name" : "write"] = value;
    return undefined;
  }
  if (flag === "--url") {
    if (!/^https?:\/\//.test(value))
      return `--url: "${value}" is not an http(s) address.\n  Fix: --url http://127.0.0.1:8787`;
    parsed.url = value;
    return undefined;
  }
  if (flag === "--spec" && /^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    return `--spec: ${value} is a URL, and URLs are not fetched: download it first.\n  Fix: curl -fLo openapi.json '${value}' and pass --spec ./openapi.json (a spec is read from a file, so what is served is what you checked).`;
  parsed.settings[SETTING_FLAGS[/** @type {keyof typeof SETTING_FLAGS} */ (flag)]] = value;
  return undefined;
}

/**
 * The known long flag a mistyped one most likely meant (`--prot` → `--port`): the nearest by
 * edit distance, within a third of the flag's length.
 * @param {string} flag
 * @returns {string | undefined}
 */
function closestFlag(flag) {
  const typed = flag.replace(/^--?/, "").toLowerCase();
  let best;
  let bestDistance = Math.max(1, Math.floor(typed.length / 3));
  for (const name of Object.keys(OPTIONS)) {
    const distance = editDistance(typed, name);
    if (distance <= bestDistance) [best, bestDistance] = [`--${name}`, distance];
  }
  return best;
}

/**
 * Levenshtein distance, counting a swap of two neighbours as one edit (`prot` ↔ `port`).
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
function editDistance(a, b) {
  /** @type {number[][]} */
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) /** @type {number[]} */ (d[0])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = /** @type {number[]} */ (d[i]);
    const prev = /** @type {number[]} */ (d[i - 1]);
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        /** @type {number} */ (prev[j]) + 1,
        /** @type {number} */ (row[j - 1]) + 1,
        /** @type {number} */ (prev[j - 1]) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(
          /** @type {number} */ (row[j]),
          /** @type {number} */ (d[i - 2]?.[j - 2]) + 1,
        );
    }
  }
  return /** @type {number} */ (d[a.length]?.[b.length]);
}

/**
 * What each command accepts beyond single options: its positional arguments and settings.
 * @param {Parsed} parsed
 * @returns {ParseResult}
 */
function commandRules(parsed) {
  /** @param {string} message @returns {ParseResult} */
  const refuse = (message) => ({ ok: false, message });
  if (parsed.command === "help" || parsed.command === "version") return { ok: true, parsed };
  // --oauth writes a project (init); a server started here reads OAUTH=on from the environment,
  // as npm start and the deployed Worker do, so the flag elsewhere is refused rather than ignored.
  if (parsed.oauth && parsed.command !== "init")
    return refuse(
      `--oauth is an init option (a project whose MCP endpoints need OAuth), not one of ${parsed.command}.\n  Fix: ${
        parsed.command === "deploy"
          ? "OAUTH=on OAUTH_PASSWORD=<passphrase> npx code-mode-mcp deploy (deploy uploads both)"
          : parsed.command === "check"
            ? "npx code-mode-mcp check <spec> (a check needs no caller check)"
            : "OAUTH=on OAUTH_PASSWORD=<passphrase> npx code-mode-mcp serve …, or npx code-mode-mcp init my-api --oauth for a project of your own"
      }`,
    );
  if (parsed.command === "desktop-config") {
    if (parsed.positional.length > 0)
      return refuse(
        `${parsed.positional[0]}: unexpected argument.\n  Fix: npx code-mode-mcp desktop-config --spec ./openapi.yaml [--base-url <url>] [--name my-api] [--write <client config file>]`,
      );
    if (parsed.dryRun || !parsed.install)
      return refuse(
        `desktop-config takes the serve options (--spec, --base-url, --upstream, --port, --route) and --name, --write.\n  Fix: npx code-mode-mcp desktop-config --spec ./openapi.yaml [--name my-api] [--write <client config file>]`,
      );
    return { ok: true, parsed };
  }
  if (parsed.name !== undefined || parsed.write !== undefined)
    return refuse(
      `${parsed.name !== undefined ? "--name" : "--write"} belongs to desktop-config.\n  Fix: npx code-mode-mcp desktop-config --spec ./openapi.yaml [--name my-api] [--write <client config file>]`,
    );
  if (parsed.command === "skills") {
    const other = Object.keys(parsed.settings).find((s) => s !== "PORT");
    if (
      other !== undefined ||
      parsed.stdio ||
      parsed.route !== undefined ||
      parsed.positional.length === 0
    )
      return refuse(
        `skills takes a subcommand and --url (or --port) only.\n  Usage: ${SKILLS_USAGE}`,
      );
    return { ok: true, parsed };
  }
  if (parsed.url !== undefined)
    return refuse(
      `--url is for the skills command.\n  Fix: npx code-mode-mcp skills list --url ${parsed.url}`,
    );
  if (parsed.command === "check" && parsed.positional.length !== 1)
    return refuse(`check needs one spec file.\n  Fix: npx code-mode-mcp check ./openapi.yaml`);
  if (parsed.command === "init") {
    if (parsed.positional.length > 1)
      return refuse(
        `init takes one folder, not ${parsed.positional.length}.\n  Fix: npx code-mode-mcp init my-mcp-server`,
      );
    const other = Object.keys(parsed.settings).find(
      (s) => s !== "SPEC_FILE" && s !== "UPSTREAM_MCP_URL" && s !== "API_BASE_URL",
    );
    if (other !== undefined || parsed.stdio || parsed.route !== undefined)
      return refuse(
        `init takes only --spec, --upstream, --base-url, --oauth and --no-install.\n  Fix: npx code-mode-mcp init my-mcp-server [--spec ./openapi.yaml] [--upstream https://mcp.example.com/mcp] [--oauth]`,
      );
    return { ok: true, parsed };
  }
  if (parsed.command !== "check" && parsed.positional.length > 0)
    return refuse(
      `${parsed.positional[0]}: unexpected argument.\n  Fix: see npx code-mode-mcp --help (a spec is given with --spec <file>).`,
    );
  if (parsed.command === "deploy" && parsed.settings.SPEC_FILE !== undefined)
    return refuse(
      `deploy --spec: deploy ships the prebuilt demo Worker, which cannot take a spec at deploy time.\n  Fix: make a Worker project for your spec and deploy that:\n    npx code-mode-mcp init my-api --spec ${parsed.settings.SPEC_FILE} && cd my-api && npm run deploy`,
    );
  if (parsed.command === "deploy" && Object.keys(parsed.settings).length > 0)
    return refuse(
      `deploy takes no settings flags: the deployed Worker reads its settings from wrangler vars and secrets.\n  Fix: npx code-mode-mcp deploy [--dry-run] [-- <wrangler deploy options>], then npx wrangler secret put API_TOKEN …; to deploy your own spec: npx code-mode-mcp init my-api --spec ./openapi.yaml`,
    );
  return { ok: true, parsed };
}

/**
 * On a Node.js without `parseArgs` tokens: help, version, or the command (which bin/ refuses
 * with "Node.js 22 or later is needed", answering a --stdio client with it).
 * @param {string[]} args
 * @param {Parsed} parsed
 * @returns {Parsed}
 */
function oldNodeParse(args, parsed) {
  if (args.includes("--help") || args.includes("-h")) parsed.command = "help";
  else if (args.includes("--version") || args.includes("-v")) parsed.command = "version";
  parsed.stdio = args.includes("--stdio");
  return parsed;
}

/** The text of `--help`. */
export const HELP = `code-mode-mcp: a Code Mode MCP server, run locally on the Workers runtime.

Needs Node.js 22 or later (wrangler and the Workers runtime require it; --help and --version
work on any Node.js).

Usage:
  npx code-mode-mcp init [folder] [--spec ./openapi.yaml] [--upstream <url>] [--oauth]
                                                      a Worker project of your own: runs with
                                                      npm run dev, tested by npm test, npm run deploy
  npx code-mode-mcp                                   the offline demo on http://127.0.0.1:8787/mcp
  npx code-mode-mcp serve --spec ./openapi.yaml --base-url https://api.example.com
                                                      your API as two tools (search, execute) at /mcp
  npx code-mode-mcp serve --upstream https://mcp.example.com/mcp
                                                      an MCP server's tools as one code tool at /mcp/code
  npx code-mode-mcp --stdio [serve options]           speak MCP on stdin/stdout (desktop clients)
  code-mode-mcp desktop-config --spec ./openapi.yaml [--base-url <url>] [--name my-api]
                [--write <client config file>]        the desktop client's JSON with absolute
                                                      paths (this Node.js, this package's bin)
  npx code-mode-mcp check ./openapi.yaml              validate and measure a spec before serving it
  npx code-mode-mcp deploy [--dry-run] [-- <wrangler deploy options>]
  npx code-mode-mcp skills list|show|delete|rollback|export|import … [--url <server>]
                                                      your saved skills on a running server
  npx code-mode-mcp skills pack <folder> <file.json>  operator skills as JSON for a library Worker

Options:
  --spec <file>       OpenAPI 2.0/3.0/3.1 file, JSON or YAML             (SPEC_FILE)
  --base-url <url>    where API calls go (default: the spec's servers)   (API_BASE_URL)
  --upstream <url>    MCP server(s) to wrap: <url> or name=<url>,…       (UPSTREAM_MCP_URL)
  --port <n>          local port (default 8787; a free one with --stdio) (PORT)
  --stdio             bridge stdin/stdout to the local server; logs go to stderr
  --route <route>     what --stdio bridges: /mcp or /mcp/code (default: /mcp/code
                      with --upstream and no spec, else /mcp)
  --url <server>      skills: the running server (default http://127.0.0.1:8787)
  --dry-run           deploy: bundle and check, upload nothing
  --no-install        init: write the project, skip npm install
  --oauth             init: clients sign in with OAuth (the owner approves each one with
                      OAUTH_PASSWORD) instead of sending MCP_API_KEY
  --name <name>       desktop-config: the server's name (default: the spec file's name)
  --write <file>      desktop-config: merge into this client config file (a copy of the
                      old one is kept as <file>.bak) instead of printing
  -h, --help          this text;  -v, --version  the version

Credentials come from the environment only, never from flags:
  API_TOKEN           sent to the API (API_AUTH_HEADER / API_AUTH_SCHEME shape it)
  UPSTREAM_MCP_AUTH   sent to the upstream MCP server(s)
  MCP_API_KEY         the key clients must send to this server
deploy uploads these as secrets, and refuses a credential with no caller check (MCP_API_KEY or
OAUTH=on) unless ALLOW_ANONYMOUS=on; deployed, a server with none refuses every MCP caller.
Every other setting of npm start is read from the environment too (APPROVALS, LIMIT_*, …);
PERSIST_TO keeps local data (default: a temporary folder removed on exit).`;
