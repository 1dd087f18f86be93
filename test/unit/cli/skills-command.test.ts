// `code-mode-mcp skills` (cli/skills.mjs) against what others wrote: export writes only inside
// its folder (a skill pack imported from that folder may hold symbolic links the import
// skipped, and the pack chose the description the export would write through them), and list
// and show print a program's text without handing its escape sequences to the terminal.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skillsCommand, writeInside } from "../../../cli/skills.mjs";
import { readSkillFolder, skillFolder } from "../../../src/codemode/skills/agent-skill-format";
import { skillLimits } from "../../../src/codemode/skills/skill-limits";

const SKILL_MD = `---
name: evil
description: "$(touch /tmp/pwned) runs when a shell reads this line"
---

## Input schema

\`\`\`json
{ "type": "object" }
\`\`\`
`;

/** What the command is run with, but its arguments. */
type CommandIo = Omit<Parameters<typeof skillsCommand>[0], "positional">;

/**
 * The command's surroundings: `fetch` as its way to the server at `url`, and `lines`, every line
 * it prints (out and err).
 */
function commandIo(fetch: unknown, url: string | undefined = "http://x") {
  const lines: string[] = [];
  const push = (line: string) => lines.push(line);
  const io = { url, env: {}, out: push, err: push, fetch } as unknown as CommandIo;
  return { io, lines };
}

/** A server that keeps what is imported and exports it, through the real format code. */
function fakeServer() {
  let kept: ReturnType<typeof skillFolder>[] = [];
  return (async (url: string, init?: RequestInit) => {
    if (url.endsWith("/import")) {
      const { folders } = JSON.parse(String(init?.body)) as {
        folders: Parameters<typeof readSkillFolder>[0][];
      };
      const drafts = folders.map((f) => readSkillFolder(f, skillLimits()));
      kept = drafts.map(skillFolder);
      return Response.json({ imported: drafts.map((d) => ({ name: d.name, version: 1 })) });
    }
    return Response.json({ folders: kept });
  }) as typeof fetch;
}

describe("skills export", () => {
  it("does not write through a link an imported pack left in the folder", async () => {
    const work = mkdtempSync(join(tmpdir(), "skills-export-"));
    const victim = join(work, "victim.txt");
    writeFileSync(victim, "precious\n");
    const pack = join(work, "pack");
    // trap/ is a real skill folder (named evil); trap/inner/SKILL.md links to the victim, and
    // evil -> trap/inner: the import skips both links, the export writes evil/SKILL.md.
    mkdirSync(join(pack, "trap", "scripts"), { recursive: true });
    mkdirSync(join(pack, "trap", "inner"));
    writeFileSync(join(pack, "trap", "SKILL.md"), SKILL_MD);
    writeFileSync(join(pack, "trap", "scripts", "evil.js"), "async () => 1\n");
    symlinkSync(victim, join(pack, "trap", "inner", "SKILL.md"));
    symlinkSync(join(pack, "trap", "inner"), join(pack, "evil"));
    const fetch = fakeServer();
    const { io, lines } = commandIo(fetch);
    expect(await skillsCommand({ ...io, positional: ["import", pack] })).toBe(0);
    expect(await skillsCommand({ ...io, positional: ["export", pack] })).toBe(1);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(lines.at(-1)).toMatch(
      /refused to write .*evil.*: .*evil is a symbolic link\.\n {2}Fix: write into a new folder/,
    );
  });

  it("refuses a file link and a path out of the folder, and writes a fresh folder", () => {
    const root = mkdtempSync(join(tmpdir(), "skills-export-"));
    const outside = join(root, "..", `${root.split("/").at(-1)}-outside.txt`);
    writeFileSync(outside, "kept\n");
    mkdirSync(join(root, "a"));
    symlinkSync(outside, join(root, "a", "SKILL.md"));
    expect(() => writeInside(root, "a/SKILL.md", "x")).toThrow(/is a symbolic link/);
    expect(() => writeInside(root, "../x.txt", "x")).toThrow(/outside/);
    expect(readFileSync(outside, "utf8")).toBe("kept\n");
    writeInside(root, "b/scripts/b.js", "async () => 1\n");
    expect(readFileSync(join(root, "b", "scripts", "b.js"), "utf8")).toBe("async () => 1\n");
    expect(lstatSync(join(root, "b")).isDirectory()).toBe(true);
  });
});

describe("skills list and show", () => {
  it("print a program's escape sequences as text, not to the terminal", async () => {
    // A program wrote the error (its run failed) and the code (an ESC inside a string literal).
    const fetch = (async (url: string) =>
      url.endsWith("/api/skills")
        ? Response.json({
            skills: [
              {
                name: "evil",
                description: "Fine.",
                version: 1,
                latest: 1,
                uses: 1,
                lastError: {
                  message: "Error: \u001b]52;c;cm0gLXJmIH4=\u0007 \u202egnp.exe",
                  at: 0,
                  version: 1,
                },
              },
            ],
          })
        : Response.json({
            skill: {
              name: "evil",
              description: "Fine.",
              input: {},
              code: 'async () => "\u001b[2J\u001b[H"',
              version: 1,
              savedAt: 0,
            },
            versions: [{ version: 1, savedAt: 0, current: true }],
          })) as typeof globalThis.fetch;
    const { io, lines } = commandIo(fetch);
    expect(await skillsCommand({ ...io, positional: ["list"] })).toBe(0);
    expect(await skillsCommand({ ...io, positional: ["show", "evil"] })).toBe(0);
    const printed = lines.join("\n");
    // oxlint-disable-next-line no-control-regex -- the point
    expect(printed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(printed).toContain("Error: \\u001b]52;c;cm0gLXJmIH4=\\u0007 \\u202egnp.exe");
    expect(printed).toContain('async () => "\\u001b[2J\\u001b[H"');
  });
});

describe("skills import", () => {
  it("stops reading a folder past the server's import limit, before sending anything", async () => {
    const pack = mkdtempSync(join(tmpdir(), "skills-import-"));
    // A pack with a node_modules: many scripts under the size of one file, 5 MB in all.
    mkdirSync(join(pack, "a", "node_modules", "x"), { recursive: true });
    for (let i = 0; i < 5; i++)
      writeFileSync(join(pack, "a", "node_modules", "x", `f${i}.js`), "x".repeat(1024 * 1024 - 1));
    let sent = false;
    const { io, lines } = commandIo(async () => {
      sent = true;
      return Response.json({ imported: [] });
    });
    expect(await skillsCommand({ ...io, positional: ["import", pack] })).toBe(1);
    expect(sent).toBe(false);
    expect(lines.at(-1)).toMatch(
      /holds over 4194304 bytes of SKILL\.md and \.js files \(the server's import limit\)/,
    );
  });
});

describe("skills pack", () => {
  it("bundles a folder of skill folders as the JSON a library Worker imports, without a server", async () => {
    const work = mkdtempSync(join(tmpdir(), "skills-pack-"));
    const dir = join(work, "skills");
    mkdirSync(join(dir, "evil", "scripts"), { recursive: true });
    writeFileSync(join(dir, "README.md"), "not a skill\n");
    writeFileSync(join(dir, "evil", "SKILL.md"), SKILL_MD);
    writeFileSync(join(dir, "evil", "scripts", "evil.js"), "async () => 1\n");
    const { io, lines } = commandIo(() => {
      throw new Error("pack needs no server");
    }, undefined);
    const file = join(work, "skills.json");
    expect(await skillsCommand({ ...io, positional: ["pack", dir, file] })).toBe(0);
    const packed = JSON.parse(readFileSync(file, "utf8")) as Parameters<
      typeof readSkillFolder
    >[0][];
    expect(packed).toEqual([
      { folder: "evil", files: { "SKILL.md": SKILL_MD, "scripts/evil.js": "async () => 1\n" } },
    ]);
    // What the Worker's `skills.readOnly` reads from it.
    expect(readSkillFolder(packed[0]!, skillLimits()).name).toBe("evil");
    expect(lines).toEqual([`Packed 1 skill folder(s) from ${dir} into ${file}.`]);
  });

  it("does not write the bundle through a link planted where it goes", async () => {
    // A cloned project may hold `skills.json -> ~/.bashrc`: the bundle written through it put
    // lines like `"SKILL.md": "… $(touch /tmp/pwned) …"` into a file a shell runs.
    const work = mkdtempSync(join(tmpdir(), "skills-pack-link-"));
    const dir = join(work, "skills");
    mkdirSync(join(dir, "evil", "scripts"), { recursive: true });
    writeFileSync(join(dir, "evil", "SKILL.md"), SKILL_MD);
    writeFileSync(join(dir, "evil", "scripts", "evil.js"), "async () => 1\n");
    const victim = join(work, "bashrc");
    writeFileSync(victim, "precious\n");
    const file = join(work, "skills.json");
    symlinkSync(victim, file);
    const { io, lines } = commandIo(() => {
      throw new Error("pack needs no server");
    });
    const code = await skillsCommand({ ...io, positional: ["pack", dir, file] });
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(code).toBe(1);
    expect(lines.at(-1)).toMatch(/skills\.json is a symbolic link\.\n {2}Fix: /);
  });
});
