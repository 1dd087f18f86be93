// The Cloudflare spec as JSON text: bench/wrangler.jsonc ships this file through a Text rule,
// read from /work/shared (never copied into the repository). Typed by cloudflare-spec.d.ts, so
// the typecheck never parses the 4 MB JSON.
import text from "../../../shared/specs/cloudflare-api-2024-08-06.json";

export default text;
