/**
 * What of a runtime's message (runtime.mjs) makes its workerd configuration, and what is given
 * per runtime on workerd's command line instead (its sockets' addresses), so that one
 * configuration serves the host, each of its replacements and every runner.
 */

/**
 * What of a runtime's message (runtime.mjs RuntimeMessage) these parts are made of, spelled out
 * here so that this room does not point back at the file that uses it.
 * @typedef {object} MessageParts
 * @property {Record<string, unknown>} options - Miniflare (V4-style) options, plain data
 * @property {{ worker: string } | undefined} [direct] - the Worker given the runtime's own direct
 *   socket (the host)
 */

/**
 * What of a message makes its configuration, and what differs from runtime to runtime: each
 * direct socket's address leaves the options for a placeholder (it is given on workerd's command
 * line instead, by the socket's name, `direct:<worker index>:<entrypoint>` as Miniflare names
 * it), and the `direct` Worker (the host) gets one more direct socket, whose address each runtime
 * gives. The placeholder is in a folder that does not exist: a socket whose address were not given
 * could not be bound, and the runtime would not start.
 * @param {MessageParts} message
 * @param {string} placeholder - `unix:<path>` that cannot be bound
 * @returns {{ options: Record<string, unknown>, named: Record<string, string>, direct: string | undefined }}
 *   named: socket name → address from the message; direct: the name of the runtime's own direct
 *   socket (the host), to be given its address at start
 */
export function configParts(message, placeholder) {
  /** @type {Record<string, string>} */
  const named = {};
  /** @type {string | undefined} */
  let direct;
  const workers = /** @type {any[]} */ (message.options.workers ?? []).map((worker, index) => {
    /** @type {any[]} */
    const sockets = [...(worker.unsafeDirectSockets ?? [])];
    const own = message.direct?.worker === worker.name;
    if (own) direct = `direct:${index}:default`;
    if (sockets.length === 0 && !own) return worker;
    return {
      ...worker,
      unsafeDirectSockets: [
        ...sockets.map((socket) => {
          const name = `direct:${index}:${socket.entrypoint ?? "default"}`;
          named[name] = `${socket.host}:${socket.port ?? 0}`;
          return { ...socket, host: placeholder, port: 0 };
        }),
        ...(own ? [{ host: placeholder, port: 0 }] : []),
      ],
    };
  });
  if (message.direct && direct === undefined)
    throw new Error(`the Worker ${message.direct.worker} given a direct socket is not configured`);
  return { options: { ...message.options, workers }, named, direct };
}
