/**
 * A hostile program that tries to get a credential out of whatever a host call gives it, and the
 * check that none came out. The program decodes everything it can (bytes as Latin-1, UTF-8 and
 * UTF-16, base64 strings, error messages, object keys), then sends it out transformed in ways
 * the final result redaction cannot undo (every character split by `|`) and in ways it can
 * (reversed, upper case, base64), through the result and the console. So the check passes only
 * when the credential never entered the sandbox.
 */

/** The probe: replace `CALL` with an expression (awaited inside a try) that yields the data. */
export const EXFILTRATE = `async () => {
  const seen = [];
  const fromBytes = (b) => {
    let latin1 = "", le = "", be = "";
    for (let i = 0; i < b.length; i++) latin1 += String.fromCharCode(b[i]);
    for (let i = 0; i + 1 < b.length; i += 2) {
      le += String.fromCharCode(b[i] | (b[i + 1] << 8));
      be += String.fromCharCode((b[i] << 8) | b[i + 1]);
    }
    // Odd offsets too: a UTF-16 copy may start anywhere.
    for (let i = 1; i + 1 < b.length; i += 2) le += String.fromCharCode(b[i] | (b[i + 1] << 8));
    for (let i = 1; i + 1 < b.length; i += 2) be += String.fromCharCode((b[i] << 8) | b[i + 1]);
    seen.push(latin1, le, be, new TextDecoder().decode(b));
  };
  const grab = (v, depth = 0) => {
    if (depth > 20 || v === null || v === undefined) return;
    if (typeof v === "string") {
      seen.push(v, v.replace(/\\0/g, ""));
      // Text decoded with the wrong charset: split each UTF-16 code unit back into its bytes.
      if (/[\\u0100-\\uffff]/.test(v)) {
        const b = [];
        for (let i = 0; i < v.length; i++) b.push(v.charCodeAt(i) & 0xff, v.charCodeAt(i) >> 8);
        fromBytes(Uint8Array.from(b));
      }
      if (/^[A-Za-z0-9+/_=-]{8,}$/.test(v.trim())) {
        try { const raw = atob(v.trim().replace(/-/g, "+").replace(/_/g, "/"));
          fromBytes(Uint8Array.from(raw, (c) => c.charCodeAt(0))); } catch {}
      }
      return;
    }
    if (typeof v !== "object") { seen.push(String(v)); return; }
    if (v instanceof Uint8Array) return fromBytes(v);
    if (v instanceof ArrayBuffer) return fromBytes(new Uint8Array(v));
    // An ApiError also carries the answer as own fields (status, headers, body).
    if (v instanceof Error) { grab(v.name); grab(v.message); for (const [k, x] of Object.entries(v)) { grab(k); grab(x, depth + 1); } return; }
    if (v instanceof Map) { for (const [k, x] of v) { grab(k, depth + 1); grab(x, depth + 1); } return; }
    if (v instanceof Set) { for (const x of v) grab(x, depth + 1); return; }
    for (const [k, x] of Object.entries(v)) { grab(k); grab(x, depth + 1); }
  };
  try { grab(CALL); } catch (e) { grab(e); }
  const all = seen.join(" ");
  const utf8 = new TextEncoder().encode(all);
  let bin = ""; for (const b of utf8) bin += String.fromCharCode(b);
  const forms = [all.split("").join("|"), [...all].reverse().join(""), all.toUpperCase(), btoa(bin)];
  console.log(forms.join(" ~ "));
  return "probe ran " + forms.join(" ~ ");
}`;

/**
 * Which forms of the secrets appear in a tool's output (empty when none): the plain secret (any
 * case) or its reversal, also with the probe's `|` separators removed.
 * @param output - the tool result text
 * @param secrets - the credentials that must not appear
 */
export function leakedForms(output: string, secrets: readonly string[]): string[] {
  const joined = output.toLowerCase();
  const unsplit = joined.replaceAll("|", "");
  const found: string[] = [];
  for (const secret of secrets) {
    const lower = secret.toLowerCase();
    const reversed = [...lower].toReversed().join("");
    if (joined.includes(lower)) found.push(`plain ${secret}`);
    if (joined.includes(reversed)) found.push(`reversed ${secret}`);
    if (unsplit.includes(lower) && !joined.includes(lower)) found.push(`split ${secret}`);
    if (unsplit.includes(reversed) && !joined.includes(reversed))
      found.push(`split reversed ${secret}`);
  }
  return found;
}
