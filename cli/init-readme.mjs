// The README.md `code-mode-mcp init` writes, and the commands that set a deployed project's
// secrets (also printed by init). One text for every project: what differs between a project
// whose clients send a key and one whose clients sign in with OAuth is data (ACCESS below), so
// the parts both share (where the secret lives locally and deployed, the desktop JSON) are
// written once. The output is golden-tested per variant (test/golden/init-readme/).

/**
 * The commands that set the deployed Worker's keys (each asks for the value; use .dev.vars' or
 * a new random one).
 * @param {boolean} withSpec - the `--spec` template (approvals, API_TOKEN)
 * @param {boolean} [oauth] - `--oauth`: the consent passphrase instead of the key
 * @returns {string[]}
 */
export function secretCommands(withSpec, oauth = false) {
  return [
    `npx wrangler secret put ${oauth ? "OAUTH_PASSWORD" : "MCP_API_KEY"}`,
    ...(withSpec
      ? ["npx wrangler secret put REQUEST_STATE_KEY", "npx wrangler secret put API_TOKEN"]
      : []),
  ];
}

/**
 * @typedef {object} Access - how clients get in, per kind of project
 * @property {string} secret - the secret the owner sets (.dev.vars locally)
 * @property {string} what - what that secret is, for "the … is X in .dev.vars"
 * @property {(risk: string) => string} intro - who may call, then `risk`
 * @property {string} [steps] - how a client gets in, before the Locally/Deployed list
 * @property {string} unset - what the deployed Worker does until the secret is set, and after
 * @property {(url: string) => string} clients - how clients connect, before the desktop JSON
 * @property {(name: string, url: string) => object} desktop - the desktop client's JSON
 * @property {(url: string) => string} [after] - what follows the desktop JSON
 */

/** @type {{ key: Access, oauth: Access }} */
const ACCESS = {
  key: {
    secret: "MCP_API_KEY",
    what: "key",
    intro: (
      risk,
    ) => `Only MCP clients that send this Worker's key: \`Authorization: Bearer <MCP_API_KEY>\` on every
request (src/caller-check.ts compares it in constant time). A request without it gets \`401\` naming
the header. ${risk}`,
    unset: `Until \`MCP_API_KEY\` is set, the deployed Worker refuses every MCP request (\`403\`). To serve
  anyone without a key, say so explicitly: \`"ALLOW_ANONYMOUS": "on"\` in wrangler.jsonc \`vars\`.`,
    clients:
      () => `A client sends the key as a header. A desktop client (Claude Desktop, Cursor, …) through
[\`mcp-remote\`](https://www.npmjs.com/package/mcp-remote), with the key in \`env\` (the header
value has no space in \`args\`, which some clients split):`,
    desktop: (name, url) => ({
      mcpServers: {
        [name]: {
          command: "npx",
          args: ["-y", "mcp-remote", url, "--header", "Authorization:${AUTH_HEADER}"],
          env: { AUTH_HEADER: "Bearer <MCP_API_KEY>" },
        },
      },
    }),
    after: (
      url,
    ) => `From a shell: \`npx mcp-remote ${url} --header "Authorization: Bearer $MCP_API_KEY"\`. A client that
speaks Streamable HTTP itself takes the URL and the header (\`Authorization\`, value \`Bearer <key>\`).`,
  },
  oauth: {
    secret: "OAUTH_PASSWORD",
    what: "passphrase",
    intro: (
      risk,
    ) => `Only MCP clients that signed in with OAuth 2.1 and that you approved (src/oauth.ts, with
[\`@cloudflare/workers-oauth-provider\`](https://www.npmjs.com/package/@cloudflare/workers-oauth-provider)).
A request without a valid access token gets \`401\`. ${risk}`,
    steps: `How a client signs in (MCP clients do every step but one by themselves):

1. It calls the endpoint, gets \`401\` with a \`WWW-Authenticate\` header, and reads
   \`/.well-known/oauth-protected-resource\` and \`/.well-known/oauth-authorization-server\`.
2. It registers itself (\`/register\`) and opens \`/authorize\` in your browser.
3. **You** approve it there: the page names the client and the address the grant goes to, and
   asks for the owner passphrase, \`OAUTH_PASSWORD\` (src/consent.ts). Approve only a sign-in you
   started. After five wrong passphrases the page locks for 15 minutes (per client and per
   address; guesses sent at once count too).
4. The client exchanges the code (with PKCE) at \`/token\` and sends \`Authorization: Bearer
   <access token>\` from then on (tokens last an hour; the client refreshes them).`,
    unset: `Until \`OAUTH_PASSWORD\` is set, the consent page grants no one a token. Grants and tokens live
  in the \`OAUTH_KV\` namespace, which the first \`npm run deploy\` creates. To shut every client
  out, change \`OAUTH_PASSWORD\` and delete the namespace's \`grant:\` and \`token:\` keys.`,
    clients: (
      url,
    ) => `A client that signs in itself (Claude, Cursor, VS Code, the MCP Inspector) takes only the URL,
\`${url}\`. A desktop client that speaks only stdio, through
[\`mcp-remote\`](https://www.npmjs.com/package/mcp-remote), which opens the browser for step 3:`,
    desktop: (name, url) => ({
      mcpServers: { [name]: { command: "npx", args: ["-y", "mcp-remote", url] } },
    }),
    after:
      () => `For real users instead of one owner, replace src/consent.ts with your identity provider's
sign-in (its \`props\` reach the MCP handlers as \`authInfo\`).`,
  },
};

/**
 * The project's README: first how the endpoint is protected and how a client gets in (the key,
 * or the OAuth sign-in), then what is where and the three commands.
 * @param {{ name: string, sample: boolean, upstream: string | undefined, oauth?: boolean }} options
 *   - `sample`: the sample API (no `--spec`); `upstream`: `--upstream`'s URL
 * @returns {string}
 */
export function projectReadme({ name, sample, upstream, oauth = false }) {
  const url = `https://${name}.<your-subdomain>.workers.dev/mcp`;
  return `# ${name}

A Code Mode MCP server on Cloudflare Workers, made by \`code-mode-mcp init\`.

## Who can call it

${whoCanCall(oauth ? ACCESS.oauth : ACCESS.key, { name, url, sample, oauth })}

## What is where

- \`/mcp\`: ${sample ? "the sample API in src/openapi.json" : "your API (src/openapi.json)"} as two tools, \`search\` and \`execute\` (src/api.ts).
${sample || upstream !== undefined ? `- \`/mcp/code\`: ${upstream ?? "a sample MCP server"}'s tools as one \`code\` tool (src/code.ts).\n` : ""}- \`skills/\`: read-only skills this server ships to every caller, one Agent Skills folder each (skills/README.md).

\`\`\`sh
npm run dev      # http://localhost:8787/mcp
npm test         # type-check, then MCP clients against the Worker inside workerd
npm run deploy   # wrangler deploy (npx wrangler login first)
\`\`\`

Another port for \`npm run dev\`: \`npm run dev -- --port 9000\` (or \`"dev": { "port": 9000 }\` in
wrangler.jsonc). Needs Node.js 22 or later. Secrets go in \`.dev.vars\` (git-ignored) for \`npm run dev\` and in
\`npx wrangler secret put NAME\` when deployed. \`vendor/\` holds the code-mode-mcp package this
project was made with: commit it.
`;
}

/**
 * "Who can call it": who may, why it matters, how a client gets in, where the secret lives
 * locally and deployed, and how clients connect.
 * @param {Access} access - the project's kind
 * @param {{ name: string, url: string, sample: boolean, oauth: boolean }} project
 * @returns {string}
 */
function whoCanCall(access, { name, url, sample, oauth }) {
  const risk = `The endpoints run code against ${sample ? "the API" : "your API with your API_TOKEN"}, so
an open endpoint would let anyone who learns the URL make every request the spec allows.${
    sample
      ? ""
      : `
Every request but a GET also waits for a person's approval in the client (\`approval: true\` in
src/api.ts): the client shows the exact request and nothing is sent unless it is accepted.`
  }`;
  const secrets = secretCommands(!sample, oauth)
    .map((command) => `  ${command}`)
    .join("\n");
  return [
    access.intro(risk),
    ...(access.steps === undefined ? [] : [access.steps]),
    `- **Locally** (\`npm run dev\`): the ${access.what} is \`${access.secret}\` in \`.dev.vars\`, a random
  one written by init (git-ignored: never commit it).
- **Deployed**: set it before or right after the first deploy (each command asks for the value;
  reuse .dev.vars' or make a new one, e.g. \`openssl rand -base64 32\`; one shorter than 12
  characters grants no one):

  \`\`\`sh
${secrets}
  \`\`\`

  ${access.unset}`,
    `${access.clients(url)}

\`\`\`json
${JSON.stringify(access.desktop(name, url), null, 2)}
\`\`\``,
    ...(access.after === undefined ? [] : [access.after(url)]),
  ].join("\n\n");
}
