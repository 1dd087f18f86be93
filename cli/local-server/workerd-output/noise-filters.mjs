/**
 * The noise filters: lines the runtimes' workerd prints that are the cluster at work, not
 * faults, dropped from what `npm start` shows (supervise.mjs wires them to each runtime's
 * output). Each filter drops only its own pattern and the stack lines that follow it, so an
 * error of the product's own always reaches the output.
 */

/**
 * What workerd prints when its peers go away under it at shutdown: the host's RPC connections to
 * runners that end at the same moment (`kj::` exceptions, "disconnected", "Network connection
 * lost"), the signal it was sent, and the stack lines after them. Alarming red lines on a normal
 * stop, yet no fault: dropped from the output once a normal stop began, and only then.
 */
export const SHUTDOWN_NOISE =
  /\bkj::|\bkj\/|workerd\/(io|jsg|server|api)\/|Received signal #(1|2|15)\b|Peer disconnected|Network connection lost|\bdisconnected: |^\s*stack:/;

/**
 * Passes output lines on to `log`, without {@link SHUTDOWN_NOISE} and the indented lines (a
 * stack trace) that follow a dropped line. Any other line, an error included, is passed on.
 * @param {(line: string) => void} log
 * @returns {(line: string) => void}
 */
export function withoutShutdownNoise(log) {
  let dropping = false;
  return (line) => {
    if (SHUTDOWN_NOISE.test(line)) {
      dropping = true;
      return;
    }
    if (dropping && /^\s+\S/.test(line)) return;
    dropping = false;
    log(line);
  };
}

/**
 * What the host's workerd prints when a run is sent to a runner slot that has no runner (yet):
 * the connection refused or the socket file not there (a runner starting or being replaced), or
 * ended at once by the slot's doorbell (runners/runner-pool.mjs: the host asking for a runner), and the
 * stack line after each. The host sends the run to another runner at once, so these are the
 * pool at work, not faults: with runners started on demand they came every few hundred ms under
 * load.
 */
export const EMPTY_SLOT_NOISE =
  /RPC connection broken for non-DISCONNECTED reason.*connect\(\): (No such file or directory|Connection refused); address = unix:\S*runner-\d+\.sock|capnp\/rpc-twoparty\.c\+\+:\d+: failed: expected idle != this->idle/;

/**
 * Passes output lines on to `log`, without {@link EMPTY_SLOT_NOISE} and the `stack:` line that
 * follows a dropped line.
 * @param {(line: string) => void} log
 * @returns {(line: string) => void}
 */
export function withoutEmptySlotNoise(log) {
  let dropped = false;
  return (line) => {
    const drop = EMPTY_SLOT_NOISE.test(line) || (dropped && line.startsWith("stack: "));
    dropped = drop && !line.startsWith("stack: ");
    if (!drop) log(line);
  };
}
