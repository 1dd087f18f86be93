/**
 * `code-mode-mcp desktop-config` (cli/desktop-config.mjs): a desktop client's `mcpServers` entry
 * with absolute paths (this Node.js, this package's bin, the spec), printed or merged into the
 * client's config file without losing anything already there (issue #42).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../cli/args.mjs";
import {
  defaultName,
  desktopEntry,
  mergeDesktopConfig,
  writeDesktopConfig,
} from "../../../cli/desktop-config.mjs";

const BIN = join(import.meta.dirname, "../../../bin/code-mode-mcp.mjs");
const base = { node: "/opt/node22/bin/node", bin: "/pkg/bin/code-mode-mcp.mjs", cwd: "/u/me" };

describe("desktop-config entry", () => {
  it("uses absolute paths: the Node.js, the bin, the spec; the credential as a placeholder", () => {
    const made = desktopEntry({
      ...base,
      settings: { SPEC_FILE: "./apis/stripe.yaml", API_BASE_URL: "https://api.example.com" },
      route: undefined,
      name: undefined,
      exists: (path) => path === "/u/me/apis/stripe.yaml",
    });
    expect(made).toEqual({
      ok: true,
      name: "stripe",
      entry: {
        command: "/opt/node22/bin/node",
        args: [
          "/pkg/bin/code-mode-mcp.mjs",
          "--stdio",
          "--spec",
          "/u/me/apis/stripe.yaml",
          "--base-url",
          "https://api.example.com",
        ],
        env: { API_TOKEN: "your-api-token" },
      },
    });
  });

  it("refuses a spec that is not there, naming the absolute path it looked at", () => {
    const made = desktopEntry({
      ...base,
      settings: { SPEC_FILE: "api.yaml" },
      route: undefined,
      name: undefined,
      exists: () => false,
    });
    expect(made).toMatchObject({ ok: false });
    expect(!made.ok && made.message).toMatch(
      /^--spec: \/u\/me\/api\.yaml does not exist\.\n {2}Fix: /,
    );
  });

  it("needs a spec or an upstream", () => {
    const made = desktopEntry({ ...base, settings: {}, route: undefined, name: undefined });
    expect(!made.ok && made.message).toMatch(
      /needs --spec <file> or --upstream <url>.*\n {2}Fix: /,
    );
  });

  it("an upstream alone: no credential placeholder, named code unless --name says otherwise", () => {
    const made = desktopEntry({
      ...base,
      settings: { UPSTREAM_MCP_URL: "https://mcp.example.com/mcp", PORT: "9300" },
      route: "/mcp/code",
      name: "tools",
    });
    expect(made).toEqual({
      ok: true,
      name: "tools",
      entry: {
        command: base.node,
        args: [
          base.bin,
          "--stdio",
          "--upstream",
          "https://mcp.example.com/mcp",
          "--port",
          "9300",
          "--route",
          "/mcp/code",
        ],
      },
    });
    expect(defaultName(undefined)).toBe("code");
    expect(defaultName("./My API (v2).JSON")).toBe("my-api-v2");
    expect(defaultName("./+++.yaml")).toBe("my-api");
  });
});

describe("merging into a client config", () => {
  const entry = { command: "/n", args: ["/b", "--stdio"], env: { API_TOKEN: "your-api-token" } };

  it("keeps every other key and server, and a replaced server's real credential", () => {
    const before = JSON.stringify({
      globalShortcut: "Ctrl+Space",
      mcpServers: {
        other: { command: "x" },
        api: { command: "old", args: [], env: { API_TOKEN: "real-token", EXTRA: "1" } },
      },
    });
    const merged = mergeDesktopConfig(before, "api", entry, "c.json");
    expect(merged.ok && merged.replaced).toBe(true);
    expect(JSON.parse(merged.ok ? merged.text : "")).toEqual({
      globalShortcut: "Ctrl+Space",
      mcpServers: {
        other: { command: "x" },
        api: {
          command: "/n",
          args: ["/b", "--stdio"],
          env: { API_TOKEN: "real-token", EXTRA: "1" },
        },
      },
    });
  });

  it("starts a file that is missing or empty", () => {
    for (const text of [undefined, "", "\n"]) {
      const merged = mergeDesktopConfig(text, "api", entry, "c.json");
      expect(merged.ok && merged.replaced).toBe(false);
      expect(JSON.parse(merged.ok ? merged.text : "")).toEqual({ mcpServers: { api: entry } });
    }
  });

  it("refuses a file it cannot read as a config, and writes nothing", () => {
    const broken = mergeDesktopConfig('{ "mcpServers": ', "api", entry, "c.json");
    expect(!broken.ok && broken.message).toMatch(
      /^c\.json is not valid JSON .*nothing was written\.\n {2}Fix: /,
    );
    for (const text of ["[]", '{"mcpServers": []}', '{"mcpServers": "x"}', "3"]) {
      const odd = mergeDesktopConfig(text, "api", entry, "c.json");
      expect(!odd.ok && odd.message, text).toMatch(
        /expected a JSON object whose "mcpServers" is an object/,
      );
    }
  });

  it("a server named __proto__ is a key like any other", () => {
    const merged = mergeDesktopConfig('{"mcpServers":{}}', "__proto__", entry, "c.json");
    const parsed = JSON.parse(merged.ok ? merged.text : "");
    expect(Object.keys(parsed.mcpServers)).toEqual(["__proto__"]);
  });

  it("--write keeps the old file as .bak and its permissions", () => {
    const dir = mkdtempSync(join(tmpdir(), "desktop-config-"));
    const file = join(dir, "claude_desktop_config.json");
    writeFileSync(file, '{"mcpServers":{"other":{"command":"x"}}}', { mode: 0o600 });
    expect(writeDesktopConfig(file, "api", entry)).toEqual({ ok: true, replaced: false });
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers).toEqual({
      other: { command: "x" },
      api: entry,
    });
    expect(readFileSync(`${file}.bak`, "utf8")).toBe('{"mcpServers":{"other":{"command":"x"}}}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A broken file is left as it is.
    writeFileSync(file, "{ broken");
    expect(writeDesktopConfig(file, "api", entry)).toMatchObject({ ok: false });
    expect(readFileSync(file, "utf8")).toBe("{ broken");
    // A folder that is not there is a wrong path, not one to create.
    expect(writeDesktopConfig(join(dir, "no/such/file.json"), "api", entry)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/does not exist; nothing was written\.\n {2}Fix: /),
    });
    expect(existsSync(join(dir, "no"))).toBe(false);
  });
});

describe("the command", () => {
  it("parses its own options and refuses them elsewhere", () => {
    const parsed = parseArgs([
      "desktop-config",
      "--spec",
      "a.yaml",
      "--name",
      "x",
      "--write",
      "c.json",
    ]);
    expect(parsed.ok && parsed.parsed).toMatchObject({
      command: "desktop-config",
      name: "x",
      write: "c.json",
      settings: { SPEC_FILE: "a.yaml" },
    });
    const elsewhere = parseArgs(["serve", "--write", "c.json"]);
    expect(!elsewhere.ok && elsewhere.message).toMatch(
      /^--write belongs to desktop-config\.\n {2}Fix: /,
    );
  });

  it("prints JSON alone on stdout, with this Node.js and this bin as absolute paths", () => {
    const dir = mkdtempSync(join(tmpdir(), "desktop-config-"));
    writeFileSync(join(dir, "api.yaml"), "openapi: 3.0.3\n");
    const out = spawnSync(process.execPath, [BIN, "desktop-config", "--spec", "api.yaml"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(out.status, out.stderr).toBe(0);
    const { command, args } = JSON.parse(out.stdout).mcpServers.api;
    expect(command).toBe(process.execPath);
    expect(isAbsolute(args[0])).toBe(true);
    expect(readFileSync(args[0], "utf8")).toBe(readFileSync(BIN, "utf8"));
    expect(args.slice(1)).toEqual(["--stdio", "--spec", join(dir, "api.yaml")]);
    expect(out.stderr).toContain("env.API_TOKEN");
  });
});
