/**
 * The status page's icon (issue #32): `/favicon.ico` answers an SVG instead of a 404 on every
 * page load, and the page links it.
 */
import { describe, expect, it } from "vitest";
import { entry } from "../helpers";

describe("favicon", () => {
  it("is served as SVG and linked from the status page", async () => {
    const icon = await entry("http://localhost/favicon.ico");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const page = await (await entry("http://localhost/")).text();
    expect(page).toContain('<link rel="icon" href="/favicon.ico" type="image/svg+xml">');
  });
});
