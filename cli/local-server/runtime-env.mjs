/**
 * The process environment of the runtime host and every workerd it starts (runtime.mjs): an
 * allow-list, not the launcher's environment. workerd inherits its parent's environment, and
 * `/proc/<pid>/environ` of a process keeps what it was started with: the launcher's whole
 * environment (an `MCP_API_KEY`, `API_TOKEN`, a cloud provider's keys in the user's shell) was in
 * every workerd's, where a program that escapes its isolate, a core dump or a crash report
 * could read it (issue #40). The settings reach the runtimes as bindings over the IPC channel
 * (serve.mjs), so workerd needs none of them here: only where to find programs and files, the
 * locale and time zone, the temporary folder, TLS roots, and Miniflare's and this server's own
 * runtime switches.
 *
 * Does not pass: proxy settings (`HTTPS_PROXY`: workerd makes its outbound requests itself and
 * reads none of them; a proxy URL may carry a password), `NODE_OPTIONS` (the runtime host is
 * started with the launcher's Node and needs no options).
 */

/** The names passed on, when set (anything else is not). */
export const RUNTIME_ENV_NAMES = Object.freeze([
  // Where programs and files are (every platform), and who runs them.
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  // The locale and time zone (workerd's own messages, Date's local time).
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "TZ",
  // The temporary folder (Miniflare's files) and the user's cache and config folders.
  "TMPDIR",
  "TEMP",
  "TMP",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_RUNTIME_DIR",
  // TLS roots for the outbound requests (a company's own root).
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  // Windows: what a process there needs to start and find its folders.
  "SystemRoot",
  "SYSTEMROOT",
  "windir",
  "ComSpec",
  "PATHEXT",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "ProgramData",
  // Miniflare's and this server's runtime switches (runtime.mjs, v8-flags.mjs).
  "MINIFLARE_WORKERD_PATH",
  "MINIFLARE_WORKERD_V8_FLAGS",
  "WORKERD_INSPECTOR_PORT",
  "CLOUDFLARE_CF_FETCH_ENABLED",
  "WRANGLER_SEND_METRICS",
  "NO_COLOR",
  // glibc's malloc tunables, when the user set them (else malloc-env.mjs sets its own).
  "MALLOC_ARENA_MAX",
  "MALLOC_MMAP_THRESHOLD_",
  "MALLOC_TRIM_THRESHOLD_",
  "FORCE_COLOR",
]);

/**
 * The runtimes' environment: the allowed names of `env` that are set, then `set` (which wins).
 * @param {Record<string, string | undefined>} env - the launcher's environment
 * @param {Record<string, string>} [set] - values this server sets itself
 * @returns {Record<string, string>}
 */
export function runtimeEnv(env, set = {}) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const name of RUNTIME_ENV_NAMES) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return { ...out, ...set };
}
