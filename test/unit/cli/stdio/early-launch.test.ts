/**
 * A `--stdio` launch's refusal channel (cli/stdio/early-launch.mjs): a refusal before the bridge
 * reads stdin is answered without it (and the bridge must not start); after, it goes through the
 * bridge and the refusal resolves only once the bridge answered the client.
 */
import { describe, expect, it } from "vitest";
import { refusalChannel } from "../../../../cli/stdio/early-launch.mjs";

describe("refusalChannel", () => {
  it("answers alone when the bridge does not read stdin yet", async () => {
    const alone: string[] = [];
    const channel = refusalChannel(async (text) => void alone.push(text));
    await channel.refuse("port in use");
    expect(alone).toEqual(["port in use"]);
    expect(channel.refusedFirst()).toBe(true);
  });

  it("hands the refusal to the bridge once it reads stdin, and waits for its answer", async () => {
    const alone: string[] = [];
    const channel = refusalChannel(async (text) => void alone.push(text));
    channel.bridgeReads();
    let refused = false;
    const refusing = channel.refuse("port in use").then(() => (refused = true));
    expect(await channel.refusal.text).toBe("port in use");
    await new Promise((next) => setImmediate(next));
    expect(refused).toBe(false);
    channel.refusal.answered();
    await refusing;
    expect(alone).toEqual([]);
    expect(channel.refusedFirst()).toBe(false);
  });
});
