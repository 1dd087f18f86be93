/**
 * The search-and-execute seeds' API: the real Cloudflare OpenAPI document (test/.fixtures/, 1,533
 * operations) and a host request callback that answers like the Cloudflare API, wrapping data
 * as `{ success, errors, messages, result }`. `?raw` import: typing a 4 MB JSON module would
 * double the typecheck time.
 */
import cloudflareText from "#fixtures/cloudflare-api-2024-08-06.json?raw";
import type { ApiRequestHandler } from "code-mode-mcp/codemode";

/** The Cloudflare API spec as text (openApiMcpServer compiles it). */
export const CLOUDFLARE_SPEC = cloudflareText;

/** The zone the execute seed asks about. */
export const ZONE_ID = "023e105f4ecef8ad9ca31a8372d0c353";

/** The rulesets of {@link ZONE_ID}, as the API returns them (more fields than the seed keeps). */
export const RULESETS = [
  {
    id: "2f2feab2026849078ba485f918791bdc",
    name: "default",
    phase: "http_request_firewall_custom",
    kind: "zone",
    version: "3",
    last_updated: "2026-01-01T00:00:00Z",
  },
  {
    id: "70339d97bdb34195bbf054b1ebe81f76",
    name: "Cache rules",
    phase: "http_request_cache_settings",
    kind: "zone",
    version: "1",
    last_updated: "2026-01-02T00:00:00Z",
  },
];

/** Host request callback: `GET /zones/{id}/rulesets` answers; anything else is a 404 envelope. */
export const cloudflareApi: ApiRequestHandler = async (request) => {
  if (request.method === "GET" && request.path === `/zones/${ZONE_ID}/rulesets`) {
    return Response.json({ success: true, errors: [], messages: [], result: RULESETS });
  }
  return Response.json(
    {
      success: false,
      errors: [{ code: 7003, message: "Could not route" }],
      messages: [],
      result: null,
    },
    { status: 404 },
  );
};
