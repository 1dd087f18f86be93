// SlotChooser (src/executor/runners/slot-chooser.ts): how runs waiting for a better runner are
// woken. Where they go is runner-placement.test.ts's and runner-loader.test.ts's.
import { describe, expect, it } from "vitest";
import { SlotChooser } from "../../../src/executor/runners/slot-chooser";

describe("SlotChooser.untilChange / changed", () => {
  it("wakes every waiting run at a change, the one first sent first, whenever each began to wait", async () => {
    // A run looks again on its own timer too, and each look waits anew: woken in the order they
    // began to wait, a run that had just looked went after runs sent long after it.
    let now = 1_000;
    const chooser = new SlotChooser([], () => now);
    const woken: string[] = [];
    const later = chooser.untilChange(now + 60_000, 900).then(() => woken.push("sent at 900"));
    const earlier = chooser.untilChange(now + 60_000, 500).then(() => woken.push("sent at 500"));
    const latest = chooser.untilChange(now + 60_000, 950).then(() => woken.push("sent at 950"));
    now += 10;
    chooser.changed();
    await Promise.all([later, earlier, latest]);
    expect(woken).toEqual(["sent at 500", "sent at 900", "sent at 950"]);
  });
});
