/**
 * The second line for what a program sends (issue #41): a program that pieced the credential
 * together (two halves from two answers: split across responses, which no reading of one body
 * catches) sends it to an upstream MCP tool as an argument, spelled out: plain, full-width,
 * spaced, U+200B-joined, as character codes, ROT13, octal, `U+` code points, Atbash (one table,
 * `SPELLED_SENDS`); and (another, `UTF16_SENDS`) the UTF-16 spellings results are tested with (percent-encoded, a NUL after
 * each character, base64 of percent-encoded, byte-swapped, also percent-encoded as UTF-8) and the
 * fifth review's (base64 of a decimal list of UTF-16 bytes, base64 of base64 of `%XX`, full-width
 * with a `\u` escape inside: these three reached the upstream readable before). The upstream must
 * receive none of them. Runs on both executors.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { z } from "zod";
import { codeMcpServer } from "../../../../src/codemode/code-mcp-server";
import { createMcpHandler } from "../../../../src/index";
import { ECHO_SECRET, holds } from "../../../helpers/redaction/credential-echoes";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { connect, direct } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

const AUTH = `Bearer ${ECHO_SECRET}`;
const rot = (t: string, f: (c: number, base: number) => number) =>
  t.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(f(c.charCodeAt(0) - base, base));
  });

/**
 * How a program sends a credential it pieced together (`t`; `chars` its characters, `shift`
 * maps its letters by their place in the alphabet) to an upstream tool, spelled out, and how a
 * reader gets it back.
 */
interface Spelling {
  name: string;
  spell: string;
  read: (t: string) => string;
}

/** The credential spelled out, one way a row. */
const SPELLED_SENDS: Spelling[] = [
  { name: "as it is", spell: "t", read: (t) => t },
  {
    name: "full-width",
    spell: `chars.map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join("")`,
    read: (t) => t.normalize("NFKC"),
  },
  { name: "spaced", spell: `chars.join(" ")`, read: (t) => t.replace(/\s+/g, "") },
  {
    name: "U+200B-joined",
    spell: `chars.join("\\u200b")`,
    read: (t) => t.replace(/\u200b/g, ""),
  },
  {
    name: "char codes",
    spell: `chars.map((c) => c.charCodeAt(0)).join(",")`,
    read: (t) =>
      t.replace(/\d{1,7}(?:,\d{1,7}){7,}/g, (run) =>
        String.fromCodePoint(...run.split(",").map(Number)),
      ),
  },
  {
    name: "ROT13",
    spell: `shift((k) => (k + 13) % 26)`,
    read: (t) => rot(t, (k, base) => ((k + 13) % 26) + base),
  },
  {
    name: "Atbash",
    spell: `shift((k) => 25 - k)`,
    read: (t) => rot(t, (k, base) => 25 - k + base),
  },
  {
    name: "octal",
    spell: `chars.map((c) => c.charCodeAt(0).toString(8)).join(" ")`,
    read: (t) =>
      t.replace(/[0-7]{2,3}(?: [0-7]{2,3}){7,}/g, (run) =>
        String.fromCharCode(...run.split(" ").map((o) => Number.parseInt(o, 8))),
      ),
  },
  {
    name: "code points",
    spell: `chars.map((c) => "U+" + c.charCodeAt(0).toString(16).padStart(4, "0")).join(" ")`,
    read: (t) =>
      t.replace(/U\+([0-9a-f]{2,6}) ?/gi, (_, h: string) =>
        String.fromCodePoint(Number.parseInt(h, 16)),
      ),
  },
];

/** Every run of base64 letters decoded (one that is not base64 left as it is). */
const unBase64 = (t: string) =>
  t.replace(/[A-Za-z0-9+/]{16,}={0,2}/g, (run) => {
    try {
      return atob(run);
    } catch {
      return run;
    }
  });
const unPercent = (t: string) =>
  t.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
const noNuls = (t: string) => t.replaceAll("\0", "");
const unDecimal = (t: string) =>
  t.replace(/\d{1,3}(?:, ?\d{1,3}){7,}/g, (run) =>
    String.fromCharCode(...run.split(",").map(Number)),
  );
/** UTF-16BE read as little-endian (`t` is U+7400), read back. */
const unSwapped = (t: string) =>
  t.replace(/[\u0100-\uff00]/g, (c) =>
    (c.charCodeAt(0) & 0xff) === 0 ? String.fromCharCode(c.charCodeAt(0) >> 8) : c,
  );

/**
 * The spellings of UTF-16 the second line reads in results (spelled-results.test.ts), and the
 * fifth review's three layers, as a program sends them to an upstream tool: how the program
 * spells `t` (the credential it pieced together; `chars` its characters), and how a reader gets
 * it back.
 */
const UTF16_SENDS: Spelling[] = [
  {
    name: "UTF-16LE percent-encoded",
    spell: `chars.map((c) => "%" + c.charCodeAt(0).toString(16) + "%00").join("")`,
    read: (t) => noNuls(unPercent(t)),
  },
  {
    name: "UTF-16BE percent-encoded",
    spell: `chars.map((c) => "%00%" + c.charCodeAt(0).toString(16)).join("")`,
    read: (t) => noNuls(unPercent(t)),
  },
  {
    name: "a NUL after each character",
    spell: `chars.map((c) => c + "\\0").join("")`,
    read: noNuls,
  },
  {
    name: "base64 of UTF-16LE percent-encoded",
    spell: `btoa(chars.map((c) => "%" + c.charCodeAt(0).toString(16) + "%00").join(""))`,
    read: (t) => noNuls(unPercent(unBase64(t))),
  },
  {
    name: "UTF-16BE read as little-endian",
    spell: `chars.map((c) => String.fromCharCode(c.charCodeAt(0) << 8)).join("")`,
    read: unSwapped,
  },
  {
    name: "UTF-16BE read as little-endian, percent-encoded as UTF-8",
    spell: `encodeURIComponent(chars.map((c) => String.fromCharCode(c.charCodeAt(0) << 8)).join(""))`,
    read: (t) => unSwapped(decodeURIComponent(t)),
  },
  {
    name: "base64 of a decimal list of UTF-16LE bytes",
    spell: `btoa(chars.flatMap((c) => [c.charCodeAt(0), 0]).join(","))`,
    read: (t) => noNuls(unDecimal(unBase64(t))),
  },
  {
    name: "base64 of base64 of a percent-encoding",
    spell: `btoa(btoa(chars.map((c) => "%" + c.charCodeAt(0).toString(16)).join("")))`,
    read: (t) => unPercent(unBase64(unBase64(t))),
  },
  {
    name: "full-width with a \\u escape inside",
    spell: `chars.map((c) => c === "_" ? "\\\\u005f" : String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join("")`,
    read: (t) => t.replace(/\\u005f/g, "_").normalize("NFKC"),
  },
];

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

  /**
   * What the upstream tool receives (each row's note, then its tag) when the program sends every
   * spelling of `table`, with `secrets` redacted.
   */
  async function sendSpellings(
    table: Spelling[],
    secrets: string[],
  ): Promise<{ output: string; received: string[] }> {
    const received: string[] = [];
    const halves = [ECHO_SECRET.slice(0, 11), ECHO_SECRET.slice(11)];
    const upstream = () => {
      const server = new McpServer({ name: "notes", version: "1.0.0" });
      server.registerTool(
        "half",
        { description: "One half.", inputSchema: z.object({ index: z.number() }) },
        async ({ index }) => ({
          content: [{ type: "text", text: JSON.stringify({ half: halves[index] }) }],
        }),
      );
      server.registerTool(
        "post_note",
        {
          description: "Posts a note publicly.",
          inputSchema: z.object({ note: z.string(), tags: z.array(z.string()) }),
        },
        async ({ note, tags }) => {
          received.push(note, ...tags);
          return { content: [{ type: "text", text: "posted" }] };
        },
      );
      return server;
    };
    const factory = codeMcpServer({
      upstream: {
        url: "http://notes.local/mcp",
        headers: { authorization: AUTH },
        fetch: (url: string | URL | Request, init?: RequestInit) =>
          direct(createMcpHandler(upstream))(url, init),
      },
      executor,
      secrets,
    });
    const client = await connect(createMcpHandler(factory));
    const program = `async () => {
      const half = (r) => (typeof r === "string" ? JSON.parse(r) : r).half;
      const t = half(await codemode.half({ index: 0 })) + half(await codemode.half({ index: 1 }));
      const chars = [...t];
      const shift = (f) => t.replace(/[a-z]/gi, (c) => {
        const base = c <= "Z" ? 65 : 97;
        return String.fromCharCode(f(c.charCodeAt(0) - base) + base);
      });
      const spelled = [${table.map((row) => row.spell).join(",\n")}];
      for (const note of spelled) await codemode.post_note({ note, tags: [note] });
      return "sent " + spelled.length;
    }`;
    const result = await client.callTool({ name: "code", arguments: { code: program } });
    await client.close();
    return { output: text(result), received };
  }

  /** The rows of `table` whose reader gets the credential back from what the upstream received. */
  const leaked = (table: Spelling[], received: string[]) =>
    table
      .filter((row, index) =>
        received.slice(2 * index, 2 * index + 2).some((sent) => holds(row.read(sent), ECHO_SECRET)),
      )
      .map((row) => row.name);

  for (const [what, table] of [
    ["spelled out", SPELLED_SENDS],
    ["in UTF-16 or three layers", UTF16_SENDS],
  ] as const)
    it(`a recovered credential ${what} is sent to no upstream tool`, async () => {
      // Without redaction every reader gets the credential back (each row can fail).
      const open = await sendSpellings(table, []);
      expect(leaked(table, open.received)).toEqual(table.map((row) => row.name));
      const { output, received } = await sendSpellings(table, [AUTH, ECHO_SECRET]);
      expect(output).toContain(`sent ${table.length}`);
      expect(received).toHaveLength(2 * table.length);
      expect(leaked(table, received)).toEqual([]);
      expect(received.join("\n")).toContain("[REDACTED]");
    });

  it("a credential sent as an array of its characters or codes reaches no upstream tool", async () => {
    // The arguments were redacted value by value: one character, or one code, is no credential,
    // so `items: [...token]` reached the upstream whole, to be joined back there.
    const received: unknown[][] = [];
    const upstream = () => {
      const server = new McpServer({ name: "lists", version: "1.0.0" });
      server.registerTool(
        "post_list",
        {
          description: "Posts a list publicly.",
          inputSchema: z.object({ items: z.array(z.union([z.string(), z.number()])) }),
        },
        async ({ items }) => {
          received.push(items);
          return { content: [{ type: "text", text: "posted" }] };
        },
      );
      return server;
    };
    const factory = codeMcpServer({
      upstream: {
        url: "http://lists.local/mcp",
        headers: { authorization: AUTH },
        fetch: (url: string | URL | Request, init?: RequestInit) =>
          direct(createMcpHandler(upstream))(url, init),
      },
      executor,
      secrets: [AUTH, ECHO_SECRET],
    });
    const client = await connect(createMcpHandler(factory));
    const program = `async () => {
      const t = ${JSON.stringify(ECHO_SECRET.slice(0, 11))} + ${JSON.stringify(ECHO_SECRET.slice(11))};
      const notes = [];
      for (const items of [[...t], [...t].map((c) => c.charCodeAt(0)), ["safe", "list"]]) {
        try {
          await codemode.post_list({ items });
          notes.push("sent");
        } catch (error) {
          notes.push(String(error.message));
        }
      }
      return notes;
    }`;
    const result = await client.callTool({ name: "code", arguments: { code: program } });
    await client.close();
    const joined = received.map((items) =>
      items.map((x) => (typeof x === "number" ? String.fromCharCode(x) : x)).join(""),
    );
    expect(joined.some((t) => holds(t, ECHO_SECRET))).toBe(false);
    // A list without the credential is sent; the refusals say why.
    expect(joined).toContain("safelist");
    expect(text(result)).toContain("spread over several values");
  });
});
