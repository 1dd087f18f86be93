// The search of what a program sends (src/codemode/request/sent-check.ts, issue #40): small texts
// at once, large ones in bounded slices one at a time per run, all of it charged to the run.
// Slices are counted (pauses), never timed: workerd's clocks stand still while JavaScript runs.
import { describe, expect, it } from "vitest";
import { secretRedactor, type Redactor } from "../../../../src/codemode/redaction/redaction";
import { SLICE_POSITIONS } from "../../../../src/codemode/redaction/slices";
import { SLICED_BODY } from "../../../../src/codemode/request/api-response";
import { MAX_SENT_CHARS_PER_RUN, sentCheck } from "../../../../src/codemode/request/sent-check";

const TOKEN = "tok_Live.9f8e/7d6c-5b4a";
const redactor = secretRedactor(Object.freeze([`Bearer ${TOKEN}`, TOKEN]));
const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));
const percent = (text: string) =>
  [...new TextEncoder().encode(text)].map((b) => `%${b.toString(16)}`).join("");
const counting = () => {
  const counter = { pauses: 0, pause: async () => void counter.pauses++ };
  return counter;
};

describe("the search of what a run sends", () => {
  it("answers a small text at once, as the redactor does, without a pause", () => {
    const counter = counting();
    const check = sentCheck(redactor, { yieldThread: counter.pause });
    const clean = `{"note":"${fill("%25", 1000)}"}`;
    expect(check.text(clean, "codemode.request()")).toBe(clean);
    expect(check.text(`x${TOKEN}`, "codemode.request()")).toBe(redactor.text(`x${TOKEN}`));
    expect(counter.pauses).toBe(0);
    expect(check.charged).toBe(clean.length + TOKEN.length + 1);
  });

  it("searches a large text in slices and finds what the synchronous search finds", async () => {
    const bodies = [
      fill("%2541%25%41a%2525", 1_048_576),
      `${fill("%25", 300_000)}${percent(TOKEN)}${fill("%2541", 300_000)}`,
      `${fill("a%25 ", 100_000)}[${[...TOKEN].map((c) => c.charCodeAt(0)).join(",")}]`,
    ];
    for (const body of bodies) {
      const counter = counting();
      const check = sentCheck(redactor, { yieldThread: counter.pause });
      const found = check.text(body, "codemode.request()");
      expect(found).toBeInstanceOf(Promise);
      expect(await found).toBe(redactor.text(body));
      // A pause per slice of positions: at least one per SLICE_POSITIONS characters.
      expect(counter.pauses).toBeGreaterThanOrEqual(Math.floor(body.length / SLICE_POSITIONS));
      expect(check.pauses).toBe(counter.pauses);
    }
  });

  it("searches large bytes in slices as the redactor's bytes do", async () => {
    const bytes = new TextEncoder().encode(`${fill("%25", SLICED_BODY)}${TOKEN}`);
    const counter = counting();
    const found = await sentCheck(redactor, { yieldThread: counter.pause }).bytes(bytes, "x()");
    expect([...found]).toEqual([...redactor.bytes(bytes)]);
    expect(counter.pauses).toBeGreaterThan(0);
  });

  it("refuses past the run's budget, unsearched, naming the limit and the fix", async () => {
    const check = sentCheck(redactor, { maxChars: 200_000 });
    const text = fill("a", 90_000);
    await check.text(text, "codemode.request()");
    await check.text(text, "codemode.request()");
    expect(check.charged).toBe(180_000);
    let thrown: unknown;
    try {
      check.text(text, "codemode.request()");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ name: "LimitError" });
    expect(String((thrown as Error).message)).toMatch(
      /^codemode\.request\(\) was not sent: .*200000 characters .*per run.*send large data over several runs/,
    );
    expect(check.charged).toBe(180_000);
    // A small one still fits.
    expect(check.text("fits", "codemode.request()")).toBe("fits");
    expect(MAX_SENT_CHARS_PER_RUN).toBe(64 * 1_048_576);
  });

  it("charges nothing and searches nothing without a configured secret", () => {
    const check = sentCheck(secretRedactor(Object.freeze([])), { maxChars: 10 });
    const text = fill("a", SLICED_BODY * 2);
    expect(check.text(text, "x()")).toBe(text);
    expect(check.charged).toBe(0);
  });

  it("searches a run's large texts one at a time, in the order they came", async () => {
    const events: string[] = [];
    const watched: Redactor = {
      ...redactor,
      cleanTextInSlices: async (value, pause) => {
        events.push(`start ${value.length}`);
        const clean = await redactor.cleanTextInSlices(value, pause);
        events.push(`end ${value.length}`);
        return clean;
      },
    };
    const check = sentCheck(watched, { yieldThread: async () => {} });
    const texts = [4, 2, 3].map((n) => "%25".repeat((SLICED_BODY * n) / 3 + 1));
    await Promise.all(texts.map((text) => check.text(text, "x()")));
    expect(events).toEqual(texts.flatMap(({ length }) => [`start ${length}`, `end ${length}`]));
  });

  it("stops a sliced search at its next pause once the run ended", async () => {
    const controller = new AbortController();
    let pauses = 0;
    const check = sentCheck(redactor, {
      yieldThread: async () => {
        if (++pauses === 3) controller.abort();
      },
    });
    const body = fill("%2541%25%41a%2525", 1_048_576);
    await expect(check.text(body, "x()", controller.signal)).rejects.toThrow(/run ended/);
    expect(pauses).toBe(3);
    // Queued after it, and the run is over: not searched at all.
    await expect(check.text(body, "x()", controller.signal)).rejects.toThrow(/run ended/);
    expect(pauses).toBe(3);
  });
});
