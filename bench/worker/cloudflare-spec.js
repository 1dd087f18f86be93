// The Cloudflare spec as JSON text: bench/wrangler.jsonc ships this file through a Text rule,
// read from test/.fixtures/ (vendored gzipped in test/fixtures/specs/, unpacked by `npm run
// fixtures`, which `npm run bench` runs first). Typed by cloudflare-spec.d.ts, so the typecheck
// never parses the 4 MB JSON.
import text from "../../test/.fixtures/cloudflare-api-2024-08-06.json";

export default text;
