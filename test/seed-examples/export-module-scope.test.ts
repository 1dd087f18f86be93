/**
 * Seed example examples/export-module-scope.ts: one handler at module scope, invoked from the
 * Worker's object export. It serves tools, and `handler.notify.toolsChanged()` reaches a
 * `subscriptions/listen` stream a client opened through that export (the reason the docs give
 * for module scope).
 */
import { describe, expect, it } from "vitest";
import worker, { handler } from "./examples/export-module-scope";
import { connectV2, text, viaWorker } from "./support/clients";

describe("seed: createMcpHandler at module scope", () => {
  it("serves tools and delivers notify to an open listen stream", async () => {
    const client = await connectV2("http://localhost/mcp", viaWorker(worker));
    expect(text(await client.callTool({ name: "hello", arguments: {} }))).toBe("Hello, World!");
    const changed = new Promise<string>((resolve) =>
      client.setNotificationHandler("notifications/tools/list_changed", (notification) =>
        resolve(notification.method),
      ),
    );
    const subscription = await client.listen({ toolsListChanged: true });
    handler.notify.toolsChanged();
    expect(await changed).toBe("notifications/tools/list_changed");
    await subscription.close();
    await client.close();
  });
});
