// `code-mode-mcp --stdio`: the MCP stdio transport (the SDK's own, newline-delimited JSON-RPC on
// stdin/stdout) bridged to the local server's Streamable HTTP endpoint, so a desktop client can
// start the product as a command. stdout carries protocol only; everything else goes to `log`.
// A `tools/call` that fails in the local server itself (a runtime replaced under it, the server
// unreachable) is answered as a tool error the model can read and act on (retry), never as a
// transport failure that desktop clients show as a broken server.
/* oxlint-disable unicorn/prefer-add-event-listener -- the SDK transports have only these callbacks */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/**
 * @typedef {import("@modelcontextprotocol/sdk/types.js").JSONRPCMessage} Message
 * @typedef {import("../kept/early-answers.mjs").EarlyAnswers} EarlyAnswers - `initialize`
 *   results by the protocol version asked (a type only: the store is the launcher's)
 */

/** How long a refused launch waits for a request to answer (desktop clients send one at once). */
const REFUSAL_WAIT_MS = 10_000;

/**
 * `value` as JSON with every object's keys sorted: two answers compared by what they say.
 * @param {unknown} value
 * @returns {string}
 */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null)
    return `{${Object.keys(value)
      .toSorted()
      .filter((k) => /** @type {any} */ (value)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(/** @type {any} */ (value)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** What the SDK's HTTP transport puts before the body of a non-2xx answer in its error. */
const POST_ERROR = /^Streamable HTTP error: Error POSTing to endpoint: /;

/**
 * The local server's own answer inside the HTTP transport's error for a refused POST (the SDK
 * throws `Streamable HTTP error: Error POSTing to endpoint: <body>`), so the client gets that
 * error once instead of JSON inside an error string inside another error: a JSON-RPC error keeps
 * its code and message; the product's HTTP error (`{ error: { code, message, fix } }`) becomes
 * its message and fix.
 * @param {unknown} error - what `send` threw
 * @returns {{ code?: number, message: string } | undefined} undefined when the server did not answer
 */
export function serverAnswer(error) {
  const text = error instanceof Error ? error.message : "";
  if (!POST_ERROR.test(text)) return undefined;
  const body = text.replace(POST_ERROR, "");
  /** @type {any} */
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: `code-mode-mcp: the local server refused the request: ${body.trim()}` };
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  const e = first?.error;
  if (typeof e?.code === "number" && typeof e.message === "string")
    return { code: e.code, message: e.message };
  if (typeof e?.message === "string")
    return { message: typeof e.fix === "string" ? `${e.message} Fix: ${e.fix}` : e.message };
  return { message: `code-mode-mcp: the local server refused the request: ${body.trim()}` };
}

/**
 * Runs the bridge until stdin ends. Messages that arrive before `ready` resolves (a client sends
 * `initialize` at once; the runtime takes seconds to start) are held and sent in order.
 *
 * With `kept` (the host's `initialize` answers of the last launch with the same Worker, spec,
 * settings and route: cli/kept/early-answers.mjs), an `initialize` asking a version kept is
 * answered at once from it: a desktop client waited for the host workerd's start (1.3–3 s of a
 * loaded machine) for an answer that holds only the server's name, version and capabilities
 * (issue #43). The client's `initialize` is still held and sent to the host first (the HTTP
 * transport needs its negotiated version and any session), and the host's answer replaces the
 * kept one when it differs (logged: the client keeps the one it got, never a second answer to one
 * id). Everything after `initialize` is held until the host is ready, as without, and goes to
 * the host once it answered that `initialize` (with the version it negotiated).
 * @param {object} options
 * @param {string} options.url - the local MCP endpoint, e.g. http://127.0.0.1:PORT/mcp
 * @param {string} [options.apiKey] - the server's `MCP_API_KEY`, sent as a bearer token on every
 *   request (a --stdio launch's own key: cli/local-server/stdio-caller-key.mjs)
 * @param {Record<string, string>} [options.headers] - sent on every request too: this launch's
 *   secret, without which the server's port answers nothing (cli/local-server/front/bridge-only.mjs)
 * @param {Promise<void>} options.ready - resolves when the local server answers
 * @param {(line: string) => void} options.log - stderr
 * @param {() => void} options.onClose - stdin ended or broke: the client is gone
 * @param {EarlyAnswers} [options.kept] - `initialize` answers kept from the last launch, by the
 *   protocol version asked
 * @param {(answers: EarlyAnswers) => void} [options.keep] - told the answers to keep once the
 *   host gave one that is not kept yet
 * @param {{ text: Promise<string>, answered: () => void }} [options.refusal] - a launch whose
 *   check refuses the configuration after the bridge started reading: `text` resolves with the
 *   message, which answers every request held and the next one (10 s at most); then `answered`
 * @param {import("node:stream").Readable} [options.input] - stdin (tests: an in-memory stream)
 * @param {import("node:stream").Writable} [options.output] - stdout (tests: an in-memory stream)
 * @returns {Promise<void>}
 */
export async function runStdioBridge({
  url,
  apiKey,
  headers = {},
  ready,
  log,
  onClose,
  kept,
  keep,
  refusal,
  input = process.stdin,
  output = process.stdout,
}) {
  const stdio = new StdioServerTransport(input, output);
  const sent = { ...headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
  const http = new StreamableHTTPClientTransport(
    new URL(url),
    Object.keys(sent).length > 0 ? { requestInit: { headers: sent } } : {},
  );
  /** @type {Message[]} */
  const held = [];
  let open = false;
  /** ids of `initialize` requests sent, with the version each asked: the negotiated version goes
   * on to the HTTP side, the answer into what the next launch answers early */
  const initializing = new Map();
  /** ids of `initialize` requests answered from `kept`, with that answer: the host's is compared */
  const earlyAnswered = new Map();
  /** @type {Map<unknown, () => void>} ids of `initialize` requests sent, with what ends
   * the wait for the host's answer (its negotiated version goes on every later request) */
  const initializeWaits = new Map();
  /** Ends every wait for an `initialize` answer: the host failed, or the client left. */
  const endInitializeWaits = () => {
    for (const done of initializeWaits.values()) done();
    initializeWaits.clear();
  };
  /** @type {EarlyAnswers} what the next launch answers early (no prototype: keys are the client's) */
  const answers = Object.assign(Object.create(null), kept);
  /** @type {string | undefined} the refused launch's message, once it came */
  let refusedText;
  /** @type {(() => void) | undefined} */
  let refusalWaited;
  /** ids of `tools/call` requests still unanswered */
  const toolCalls = new Set();

  /**
   * The answer for a request the local server failed: a tool error for `tools/call`, a
   * JSON-RPC error otherwise.
   * @param {string | number} id
   * @param {string} text
   * @returns {Message}
   */
  const failure = (id, text) => {
    if (toolCalls.delete(id))
      return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], isError: true } };
    return { jsonrpc: "2.0", id, error: { code: -32603, message: text } };
  };

  /** @param {Message} message */
  const forward = async (message) => {
    /** @type {Promise<void> | undefined} */
    let initialized;
    if ("method" in message && message.method === "initialize" && "id" in message) {
      const id = message.id;
      initializing.set(id, message.params?.protocolVersion);
      initialized = new Promise((done) => initializeWaits.set(id, () => done(undefined)));
    }
    if ("method" in message && message.method === "tools/call" && "id" in message)
      toolCalls.add(message.id);
    try {
      await http.send(message);
      // A host that answers by an event stream has not said its negotiated version when `send`
      // resolves: the messages held behind an `initialize` answered early (a client that had
      // its answer sent them at once) went to the host without `mcp-protocol-version`, read as
      // another revision than the one the client was told. They wait for the host's answer.
      if (initialized && !closed) await initialized;
    } catch (error) {
      if ("id" in message) initializeWaits.delete(message.id);
      const answered = serverAnswer(error);
      // Answered early already: never a second answer to one id; the log says why what follows
      // may fail.
      if ("id" in message && earlyAnswered.delete(message.id)) {
        initializing.delete(message.id);
        // The client left meanwhile: the close cut it, no failure (issue #32).
        if (!closed)
          log(
            `code-mode-mcp: the local server did not take the initialize answered early: ${answered?.message ?? /** @type {Error} */ (error).message}`,
          );
        return;
      }
      // A refusal the server wrote itself is its own clear error: passed on once, not logged
      // as a bridge failure. Anything else (no server at all) is the bridge's to say.
      // After the client closed or a stop signal, a message cut short is part of the close.
      if (!answered && !closed)
        log(
          `code-mode-mcp: could not pass a message to the local server: ${/** @type {Error} */ (error).message}`,
        );
      // A request must get an answer, or the client waits for ever.
      if ("method" in message && "id" in message) {
        if (answered?.code !== undefined && !toolCalls.has(message.id))
          await stdio.send({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: answered.code, message: answered.message },
          });
        else
          await stdio.send(
            failure(
              message.id,
              answered?.message ??
                `code-mode-mcp: the local server failed: ${/** @type {Error} */ (error).message}`,
            ),
          );
      }
    }
  };

  /**
   * Answers `message` with the refused launch's message if it is a request not answered yet.
   * @param {Message} message
   * @returns {Promise<void> | undefined} undefined when it needs no answer
   */
  const answerRefusal = (message) => {
    if (!("method" in message) || !("id" in message) || earlyAnswered.has(message.id))
      return undefined;
    const error = { code: -32603, message: /** @type {string} */ (refusedText) };
    return stdio.send({ jsonrpc: "2.0", id: message.id, error });
  };

  stdio.onmessage = (message) => {
    if (refusedText !== undefined) {
      const answering = answerRefusal(message);
      if (answering) void answering.finally(() => refusalWaited?.());
      return;
    }
    // Before the host is up, an `initialize` asking a version kept is answered now, and still
    // held: the host gets it first once ready.
    if (!open && "method" in message && message.method === "initialize" && "id" in message) {
      const asked = message.params?.protocolVersion;
      const answer =
        typeof asked === "string" && kept && Object.hasOwn(kept, asked) ? kept[asked] : undefined;
      if (answer && !earlyAnswered.has(message.id)) {
        earlyAnswered.set(message.id, answer);
        void stdio.send({ jsonrpc: "2.0", id: message.id, result: answer });
      }
    }
    if (open) void forward(message);
    else held.push(message);
  };
  stdio.onerror = (error) => log(`code-mode-mcp: stdin: ${error.message}`);
  http.onmessage = (message) => {
    if ("id" in message && initializing.has(message.id)) {
      const asked = initializing.get(message.id);
      initializing.delete(message.id);
      initializeWaits.get(message.id)?.();
      initializeWaits.delete(message.id);
      if ("result" in message) {
        const result = /** @type {Record<string, unknown>} */ (message.result);
        const version = result.protocolVersion;
        if (typeof version === "string") http.setProtocolVersion(version);
        if (
          typeof asked === "string" &&
          canonicalJson(answers[asked]) !== canonicalJson(message.result)
        ) {
          answers[asked] = /** @type {EarlyAnswers[string]} */ (result);
          keep?.({ ...answers });
        }
      }
      const early = earlyAnswered.get(message.id);
      if (early !== undefined) {
        earlyAnswered.delete(message.id);
        // The client has its answer: the host's is compared, not passed on.
        if ("error" in message)
          log(
            `code-mode-mcp: the local server refused the initialize answered early from the last launch: ${message.error.message}`,
          );
        else if ("result" in message && canonicalJson(early) !== canonicalJson(message.result))
          log(
            `code-mode-mcp: the local server's initialize answer differs from the one given early (kept from the last launch): ${canonicalJson(message.result)} instead of ${canonicalJson(early)}; the next launch answers with the server's.`,
          );
        return;
      }
    }
    // The front's answer for a request whose runtime was replaced under it (-32603, "the
    // runtime was restarted because …; retry") reaches a tool call as a tool error.
    const id = "id" in message ? message.id : undefined;
    if (
      id !== undefined &&
      "error" in message &&
      message.error.code === -32603 &&
      toolCalls.has(id)
    ) {
      void stdio.send(failure(id, message.error.message));
      return;
    }
    if ("id" in message) toolCalls.delete(message.id);
    void stdio.send(message);
  };
  let closed = false;
  // A desktop client may end the server with a signal instead of closing stdin: the streams
  // the stop cuts are part of the close too (the supervisor stops the runtimes).
  const signals = /** @type {const} */ (["SIGTERM", "SIGINT", "SIGHUP"]);
  /** @param {NodeJS.Signals} signal */
  const stopping = (signal) => {
    closed = true;
    endInitializeWaits();
    // Alone on the signal (a bridge that answered early reads before the server's stop
    // listens): the process ends as it would without this listener, not never.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  for (const signal of signals) process.once(signal, stopping);
  http.onerror = (error) => {
    // Closing aborts the standalone SSE stream: not worth a line.
    if (!closed) log(`code-mode-mcp: local server: ${error.message}`);
    // An answer's stream that broke brings no answer: what waited for one goes on.
    endInitializeWaits();
  };
  const close = () => {
    // Its own listeners only: a closed bridge leaves the process's signals as it found them.
    for (const signal of signals) process.off(signal, stopping);
    if (closed) return;
    closed = true;
    endInitializeWaits();
    void http.close().catch(() => {});
    onClose();
  };
  stdio.onclose = close;
  input.once("end", close);
  input.once("close", close);

  // A refused launch (its check came after the bridge started reading): every request held, or
  // else the next one, gets the message the terminal gets, before the process exits.
  if (refusal)
    void refusal.text.then(async (text) => {
      refusedText = text;
      const answering = held.splice(0).flatMap((message) => answerRefusal(message) ?? []);
      if (answering.length > 0) await Promise.allSettled(answering);
      else
        await new Promise((done) => {
          const waited = () => done(undefined);
          refusalWaited = waited;
          setTimeout(waited, REFUSAL_WAIT_MS).unref();
          input.once("end", waited);
        });
      refusal.answered();
    });

  await stdio.start();
  await http.start();
  await ready;
  // A client that left while the host started (one answered early may close at once): nobody
  // waits for what it sent.
  if (closed) return;
  for (const message of held.splice(0)) await forward(message);
  open = true;
  // Anything that arrived while the held messages were sent.
  for (const message of held.splice(0)) await forward(message);
}
