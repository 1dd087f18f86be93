/**
 * `DemoStore`: the Durable Object holding the demo data in its SQLite (see demo-db.ts for the
 * tables). One instance, named `demo`, serves the whole Worker: the demo is a shared sandbox
 * data set, not per-user storage.
 *
 * Does not do: authentication. Whoever reaches `/demo-api` may change the demo data; protect
 * the Worker (`MCP_API_KEY`, OAuth) or turn the demo off by configuring a real API. Callers reach
 * it through demo-api-fetch.ts.
 */
import { DurableObject } from "cloudflare:workers";
import { handleDemoApi } from "./demo-api";
import { DemoDb } from "./demo-db";

/** The demo data's Durable Object; serves the demo API over `fetch`. */
export class DemoStore extends DurableObject<Cloudflare.Env> {
  private db: DemoDb | undefined;

  /**
   * Serves one demo API request; its path is relative to the API base (`/projects`).
   * @param request - the API request
   */
  override async fetch(request: Request): Promise<Response> {
    this.db ??= new DemoDb(this.ctx.storage.sql);
    return handleDemoApi(request, this.db);
  }
}
