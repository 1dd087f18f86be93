/**
 * A minimal client of a V8 inspector target (workerd's `--inspector-addr`, diagnostics only):
 * what profile-host.mjs and profile-code.mjs share to take a CPU profile of one Worker's isolate.
 */

/**
 * Opens `webSocketUrl` (a `/json/list` entry's `webSocketDebuggerUrl`) and answers each
 * `send(method, params)` with the command's result.
 * @param {string} webSocketUrl
 * @returns {Promise<{ send: (method: string, params?: object) => Promise<any>, close: () => void }>}
 */
export async function inspectorSession(webSocketUrl) {
  const ws = new WebSocket(webSocketUrl);
  await new Promise((r, j) => {
    ws.addEventListener("open", r, { once: true });
    ws.addEventListener("error", j, { once: true });
  });
  let next = 0;
  /** @type {Map<number, (v: any) => void>} */
  const waiting = new Map();
  ws.addEventListener("message", (m) => {
    const msg = JSON.parse(String(m.data));
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
  });
  return {
    send: (method, params = {}) =>
      new Promise((r) => {
        const id = ++next;
        waiting.set(id, r);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}
