/**
 * workerd's command line as Miniflare builds it, with the two sockets Miniflare opens on
 * 127.0.0.1 moved to Unix sockets in the server's private folder (runtime-host.mjs says why):
 * its entry socket (`--socket-addr=entry=…`, a runner's `/health` and `/retire`) and where workerd
 * reaches Miniflare's loopback server (`--external-addr=loopback=…`). Miniflare takes a Unix
 * socket for a Worker's direct socket but not for these two.
 */

/**
 * workerd's arguments with Miniflare's entry socket and loopback service on the runtime's Unix
 * sockets instead of 127.0.0.1 ports (see the header). An argument not found throws: the
 * runtime then does not start, rather than start with a TCP port (a newer Miniflare that names
 * them otherwise is noticed at once).
 * @param {string[]} args
 * @param {import("./socket-folder.mjs").RuntimeSockets} sockets
 * @returns {string[]}
 */
export function unixArguments(args, sockets) {
  const flags = /** @type {const} */ ([
    ["--socket-addr=entry=", sockets.entry],
    ["--external-addr=loopback=", sockets.loopback],
  ]);
  const out = [...args];
  for (const [flag, file] of flags) {
    const at = out.findIndex((arg) => String(arg).startsWith(flag));
    if (at === -1)
      throw new Error(
        `workerd was started without ${flag}… (a newer Miniflare?): this server puts that socket in its private folder, and will not open it on a TCP port.`,
      );
    out[at] = `${flag}unix:${file}`;
  }
  return out;
}
