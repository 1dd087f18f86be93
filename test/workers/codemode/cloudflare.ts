/**
 * The real Cloudflare spec for workerd tests, loaded once per test isolate, plus an in-test
 * upstream that answers like the Cloudflare API and records what reached it. `?raw` import:
 * typing a 4 MB JSON module would double the typecheck time.
 */
import cloudflareText from "#fixtures/cloudflare-api-2024-08-06.json?raw";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import type { ApiRequest, ApiRequestHandler } from "../../../src/codemode/request/api-request";

/** The Cloudflare API spec (1,533 operations). */
export const cloudflare = loadSpec(cloudflareText);

/** A credential only the host callback knows; it must never show up in any output. */
export const CANARY = "cf-canary-token-6f1d2c9a8b7e";

/** One request as the in-test upstream saw it. */
export interface SeenRequest extends ApiRequest {
  authorization: string | undefined;
}

/**
 * An upstream behind a host callback that adds the canary credential, like a real deployment.
 * It answers `GET /zones` with `zoneCount` zones, DNS records per zone, echoes created records,
 * and 404s for an unknown zone.
 */
export function cloudflareUpstream(zoneCount = 60): {
  handler: ApiRequestHandler;
  seen: SeenRequest[];
} {
  const seen: SeenRequest[] = [];
  const handler: ApiRequestHandler = async (request) => {
    const headers = { ...request.headers, authorization: `Bearer ${CANARY}` };
    seen.push({ ...request, authorization: headers.authorization });
    await new Promise((r) => setTimeout(r, 1));
    const zones = Array.from({ length: zoneCount }, (_, i) => ({
      id: `zone${i}`,
      name: `site${i}.example`,
      status: i % 3 === 0 ? "pending" : "active",
    }));
    const dns = /^\/zones\/([^/]+)\/dns_records$/.exec(request.path);
    if (request.method === "GET" && request.path === "/zones") {
      return Response.json({ success: true, result: zones, result_info: { count: zones.length } });
    }
    if (dns && !zones.some((z) => z.id === dns[1])) {
      return Response.json(
        { success: false, errors: [{ code: 1001, message: "Invalid zone identifier" }] },
        { status: 404 },
      );
    }
    if (dns && request.method === "GET") {
      return Response.json({
        success: true,
        result: [{ id: `${dns[1]}-a`, type: "A", name: `www.${dns[1]}`, content: "192.0.2.1" }],
      });
    }
    if (dns && request.method === "POST") {
      return Response.json({
        success: true,
        result: { id: "new-record", ...(request.body as object) },
      });
    }
    // An upstream that echoes the credential it got: redaction must keep it out of the sandbox.
    return Response.json({
      success: true,
      echo: { path: request.path, authorization: headers.authorization },
    });
  };
  return { handler, seen };
}
