// The `code-mode-mcp` command line: which command, and the settings its flags stand for. Flags
// are shorthands for the settings `npm start` reads from the environment (SPEC_FILE, API_BASE_URL,
// UPSTREAM_MCP_URL, PORT); credentials are taken from the environment only, since a command line
// shows in process lists, shell history and desktop clients' config files.

/** Flags that stand for a setting (flag → environment variable). */
export const SETTING_FLAGS = /** @type {const} */ ({
  "--spec": "SPEC_FILE",
  "--base-url": "API_BASE_URL",
  "--upstream": "UPSTREAM_MCP_URL",
  "--port": "PORT",
});

/** A flag that names a credential is refused, whatever its spelling. */
const CREDENTIAL_FLAG = /token|auth|secret|passw|key|credential|bearer|cookie/i;

/**
 * @typedef {object} Parsed
 * @property {"serve" | "check" | "deploy" | "init" | "help" | "version"} command
 * @property {Record<string, string>} settings - environment variables the flags set
 * @property {boolean} stdio
 * @property {boolean} dryRun
 * @property {boolean} install - init: run npm install (off with --no-install)
 * @property {string | undefined} route - the MCP route --stdio bridges (/mcp or /mcp/code)
 * @property {string[]} positional - check's spec file, init's folder
 * @property {string[]} passThrough - arguments after `--` (deploy passes them to wrangler)
 */

/**
 * Parses the command line, or returns the message that says what is wrong and what to do.
 * @param {string[]} argv - process.argv.slice(2)
 * @returns {{ ok: true, parsed: Parsed } | { ok: false, message: string }}
 */
export function parseArgs(argv) {
  /** @type {Parsed} */
  const parsed = {
    command: "serve",
    settings: {},
    stdio: false,
    dryRun: false,
    install: true,
    route: undefined,
    positional: [],
    passThrough: [],
  };
  const args = [...argv];
  const first = args[0];
  if (
    first === "serve" ||
    first === "check" ||
    first === "deploy" ||
    first === "init" ||
    first === "help"
  ) {
    parsed.command = first;
    args.shift();
  }
  while (args.length > 0) {
    const arg = /** @type {string} */ (args.shift());
    if (arg === "--") {
      parsed.passThrough = args.splice(0);
      break;
    }
    if (!arg.startsWith("-")) {
      parsed.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    if (flag === "--help" || flag === "-h") parsed.command = "help";
    else if (flag === "--version" || flag === "-v") parsed.command = "version";
    else if (flag === "--stdio") parsed.stdio = true;
    else if (flag === "--dry-run") parsed.dryRun = true;
    else if (flag === "--no-install") parsed.install = false;
    else if (CREDENTIAL_FLAG.test(flag))
      return {
        ok: false,
        message: `${flag}: credentials are never taken from flags (a command line shows in process lists, shell history and client config files).\n  Fix: set it in the environment instead: API_TOKEN (the API's credential), UPSTREAM_MCP_AUTH (the upstream MCP server's), MCP_API_KEY (the key clients must send to this server), e.g. API_TOKEN=… npx code-mode-mcp serve --spec ./openapi.yaml`,
      };
    else if (flag === "--route" || Object.hasOwn(SETTING_FLAGS, flag)) {
      const value = inline ?? args.shift();
      if (value === undefined || value === "" || value.startsWith("--"))
        return {
          ok: false,
          message: `${flag} needs a value.\n  Fix: see npx code-mode-mcp --help`,
        };
      if (flag === "--route") {
        if (value !== "/mcp" && value !== "/mcp/code")
          return {
            ok: false,
            message: `--route: "${value}" is not an MCP route.\n  Fix: --route /mcp (the OpenAPI tools) or --route /mcp/code (the upstream MCP servers' code tool)`,
          };
        parsed.route = value;
      } else if (flag === "--spec" && /^[a-z][a-z0-9+.-]*:\/\//i.test(value))
        return {
          ok: false,
          message: `--spec: ${value} is a URL, and URLs are not fetched: download it first.\n  Fix: curl -fLo openapi.json '${value}' and pass --spec ./openapi.json (a spec is read from a file, so what is served is what you checked).`,
        };
      else parsed.settings[SETTING_FLAGS[/** @type {keyof typeof SETTING_FLAGS} */ (flag)]] = value;
    } else
      return {
        ok: false,
        message: `${flag}: unknown option.\n  Fix: see npx code-mode-mcp --help (other settings come from the environment, as for npm start).`,
      };
  }
  if (parsed.command === "check" && parsed.positional.length !== 1)
    return {
      ok: false,
      message: `check needs one spec file.\n  Fix: npx code-mode-mcp check ./openapi.yaml`,
    };
  if (parsed.command === "init") {
    if (parsed.positional.length > 1)
      return {
        ok: false,
        message: `init takes one folder, not ${parsed.positional.length}.\n  Fix: npx code-mode-mcp init my-mcp-server`,
      };
    const other = Object.keys(parsed.settings).find(
      (s) => s !== "SPEC_FILE" && s !== "UPSTREAM_MCP_URL" && s !== "API_BASE_URL",
    );
    if (other !== undefined || parsed.stdio || parsed.route !== undefined)
      return {
        ok: false,
        message: `init takes only --spec, --upstream, --base-url and --no-install.\n  Fix: npx code-mode-mcp init my-mcp-server [--spec ./openapi.yaml] [--upstream https://mcp.example.com/mcp]`,
      };
    return { ok: true, parsed };
  }
  if (parsed.command !== "check" && parsed.positional.length > 0)
    return {
      ok: false,
      message: `${parsed.positional[0]}: unexpected argument.\n  Fix: see npx code-mode-mcp --help (a spec is given with --spec <file>).`,
    };
  if (parsed.command === "deploy" && parsed.settings.SPEC_FILE !== undefined)
    return {
      ok: false,
      message: `deploy --spec: deploy ships the prebuilt demo Worker, which cannot take a spec at deploy time.\n  Fix: make a Worker project for your spec and deploy that:\n    npx code-mode-mcp init my-api --spec ${parsed.settings.SPEC_FILE} && cd my-api && npm run deploy`,
    };
  if (parsed.command === "deploy" && Object.keys(parsed.settings).length > 0)
    return {
      ok: false,
      message: `deploy takes no settings flags: the deployed Worker reads its settings from wrangler vars and secrets.\n  Fix: npx code-mode-mcp deploy [--dry-run] [-- <wrangler deploy options>], then npx wrangler secret put API_TOKEN …; to deploy your own spec: npx code-mode-mcp init my-api --spec ./openapi.yaml`,
    };
  return { ok: true, parsed };
}

/** The text of `--help`. */
export const HELP = `code-mode-mcp: a Code Mode MCP server, run locally on the Workers runtime.

Needs Node.js 22 or later (wrangler and the Workers runtime require it; --help and --version
work on any Node.js).

Usage:
  npx code-mode-mcp init [folder] [--spec ./openapi.yaml] [--upstream <url>]
                                                      a Worker project of your own: runs with
                                                      npm run dev, tested by npm test, npm run deploy
  npx code-mode-mcp                                   the offline demo on http://127.0.0.1:8787/mcp
  npx code-mode-mcp serve --spec ./openapi.yaml --base-url https://api.example.com
                                                      your API as two tools (search, execute) at /mcp
  npx code-mode-mcp serve --upstream https://mcp.example.com/mcp
                                                      an MCP server's tools as one code tool at /mcp/code
  npx code-mode-mcp --stdio [serve options]           speak MCP on stdin/stdout (desktop clients)
  npx code-mode-mcp check ./openapi.yaml              validate and measure a spec before serving it
  npx code-mode-mcp deploy [--dry-run] [-- <wrangler deploy options>]

Options:
  --spec <file>       OpenAPI 2.0/3.0/3.1 file, JSON or YAML             (SPEC_FILE)
  --base-url <url>    where API calls go (default: the spec's servers)   (API_BASE_URL)
  --upstream <url>    MCP server(s) to wrap: <url> or name=<url>,…       (UPSTREAM_MCP_URL)
  --port <n>          local port (default 8787; a free one with --stdio) (PORT)
  --stdio             bridge stdin/stdout to the local server; logs go to stderr
  --route <route>     what --stdio bridges: /mcp or /mcp/code (default: /mcp/code
                      with --upstream and no spec, else /mcp)
  --dry-run           deploy: bundle and check, upload nothing
  --no-install        init: write the project, skip npm install
  -h, --help          this text;  -v, --version  the version

Credentials come from the environment only, never from flags:
  API_TOKEN           sent to the API (API_AUTH_HEADER / API_AUTH_SCHEME shape it)
  UPSTREAM_MCP_AUTH   sent to the upstream MCP server(s)
  MCP_API_KEY         the key clients must send to this server
Every other setting of npm start is read from the environment too (APPROVALS, LIMIT_*, …);
PERSIST_TO keeps local data (default: a temporary folder removed on exit).`;
