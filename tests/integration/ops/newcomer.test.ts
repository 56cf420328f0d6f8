/**
 * A newcomer following the README: what a person sees when
 * starting Atelier — one ready line, one line for a taken port, better-auth's
 * messages inside the JSON log, an honest Bun installer, builds only when needed.
 */

import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrations } from "#db/migrations.gen";
import { Client, uniqueEmail } from "../../support/client";
import { freePort, ROOT, startServer } from "../../support/server";

const dirs: string[] = [];
const tempDir = (tag: string) => {
  const d = mkdtempSync(join(tmpdir(), `atelier-${tag}-`));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The JSON log lines a starting server prints, up to and including its 'ready' line (30 s at most). */
async function linesUntilReady(proc: { stdout: unknown }): Promise<Record<string, unknown>[]> {
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  const deadline = Date.now() + 30_000;
  while (!text.includes('"ready"') && Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const baseEnv = (port: number, dataDir: string) => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/tmp",
  PORT: String(port),
  HOST: "127.0.0.1",
  DATA_DIR: dataDir,
});

describe("starting the server", () => {
  test("a taken port: exit 1 with one line naming the port, no stack trace", async () => {
    const holder = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("busy") });
    try {
      const proc = Bun.spawn(["bun", join(ROOT, "build/atelier.js"), "serve"], {
        env: baseEnv(holder.port!, tempDir("port")),
        stdout: "pipe",
        stderr: "pipe",
      });
      const code = await proc.exited;
      const err = (await new Response(proc.stderr).text()).trim();
      const out = (await new Response(proc.stdout).text()).trim();
      expect(code).toBe(1);
      expect(err.split("\n")).toEqual([
        `port ${holder.port} on 127.0.0.1 is already in use: stop the other server or set PORT to a free port`,
      ]);
      expect(out).toBe("");
    } finally {
      holder.stop(true);
    }
  });

  test("one 'ready' line carrying the URL to open (PUBLIC_URL)", async () => {
    const port = await freePort();
    const proc = Bun.spawn(["bun", join(ROOT, "build/atelier.js"), "serve"], {
      env: {
        ...baseEnv(port, tempDir("ready")),
        PUBLIC_URL: `http://localhost:${port}`,
        LOG_LEVEL: "info",
        JOBS: "off",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const lines = (await linesUntilReady(proc)) as { msg: string; open?: string }[];
      const ready = lines.filter((l) => l.msg === "ready");
      expect(ready).toHaveLength(1);
      expect(ready[0]!.open).toBe(`http://localhost:${port}`);
      expect(lines.some((l) => l.msg === "listening")).toBe(false);
      // A fresh data folder is migrated without a word: the ready line is the first thing a newcomer reads.
      expect(lines.map((l) => l.msg)).toEqual(["ready"]);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });

  test("a database a newer Atelier migrated (a rolled-back executable): exit 1 with one line saying what to do, nothing served", async () => {
    const dataDir = tempDir("newer");
    const migrate = Bun.spawnSync(["bun", join(ROOT, "build/atelier.js"), "migrate"], { env: baseEnv(0, dataDir) });
    expect(migrate.exitCode).toBe(0);
    const db = new Database(join(dataDir, "atelier.db"));
    db.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-atelier', ?)", [
      Date.UTC(2099, 0, 1),
    ]);
    db.close();
    for (const command of ["serve", "worker", "migrate"]) {
      const proc = Bun.spawn(["bun", join(ROOT, "build/atelier.js"), command], {
        env: baseEnv(await freePort(), dataDir),
        stdout: "pipe",
        stderr: "pipe",
      });
      const code = await proc.exited;
      const err = (await new Response(proc.stderr).text()).trim();
      expect(code).toBe(1);
      expect(err.split("\n")).toEqual([
        `database ${join(dataDir, "atelier.db")} was migrated by a newer version of Atelier (its newest migration is from 2099-01-01T00:00:00Z, ` +
          `this executable's from ${err.match(/this executable's from (\S+)\)/)?.[1]}): run that newer version, or restore the backup taken before the upgrade (docs/self-hosting.md §7)`,
      ]);
    }
  });

  test("an upgrade says what it did: a database three migrations behind → one 'database migrated' line before 'ready'", async () => {
    const dataDir = tempDir("upgrade");
    mkdirSync(dataDir, { recursive: true });
    const sqlFiles = readdirSync(join(ROOT, "db/migrations")).filter((f) => f.endsWith(".sql")).length;
    // The database an older executable left: the embedded migrations but the last three, applied as drizzle does.
    const old = drizzle(new Database(join(dataDir, "atelier.db")));
    (old as any).dialect.migrate(migrations.slice(0, sqlFiles - 3), (old as any).session, {
      migrationsFolder: "(embedded)",
    });
    old.$client.close();
    const port = await freePort();
    const proc = Bun.spawn(["bun", join(ROOT, "build/atelier.js"), "serve"], {
      env: { ...baseEnv(port, dataDir), LOG_LEVEL: "info", JOBS: "off" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const lines = await linesUntilReady(proc);
      expect(lines.map((l) => l.msg)).toEqual(["database migrated", "ready"]);
      expect(lines[0]).toMatchObject({ applied: 3, before: sqlFiles - 3, database: join(dataDir, "atelier.db") });
    } finally {
      proc.kill();
      await proc.exited;
    }
  });

  test("better-auth's warnings are JSON lines of our log, with the request id", async () => {
    const server = await startServer({ env: { LOG_LEVEL: "warn" } });
    try {
      const api = new Client(server.url);
      const email = uniqueEmail("logger");
      await api.signUp(email);
      const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url },
        body: JSON.stringify({ email, password: "not-the-password" }),
      });
      expect(res.status).toBe(401);
      await Bun.sleep(100);
      const lines = server.logs().trim().split("\n").filter(Boolean);
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      const warning = lines.map((l) => JSON.parse(l)).find((l) => String(l.msg).startsWith("better-auth:"));
      expect(warning).toMatchObject({ level: "warn", msg: "better-auth: Invalid password" });
      expect(warning.request_id).toBeTruthy();
    } finally {
      await server.dispose();
    }
  });
});

describe("npm run up builds only when sources changed", () => {
  test("scripts/up.ts --check: fresh after a build, stale once a source file is newer", () => {
    const check = () => Bun.spawnSync(["bun", join(ROOT, "scripts/up.ts"), "--check"], { cwd: ROOT }).exitCode;
    expect(check()).toBe(0);
    const source = join(ROOT, "app/lib/version.ts");
    const future = new Date(Date.now() + 60_000);
    const { atime, mtime } = statSync(source);
    utimesSync(source, future, future);
    try {
      expect(check()).toBe(1);
    } finally {
      utimesSync(source, atime, mtime);
    }
  });
});

describe("scripts/with-bun.sh without Bun and without a reachable registry", () => {
  test("prints npm's own error and the reason, installs nothing globally", () => {
    const dir = tempDir("with-bun");
    mkdirSync(join(dir, "scripts"));
    copyFileSync(join(ROOT, "scripts/with-bun.sh"), join(dir, "scripts/with-bun.sh"));
    // A PATH with node, npm and the shell tools the script uses, but no bun.
    const bin = join(dir, "bin");
    mkdirSync(bin);
    const which = (cmd: string) => Bun.which(cmd, { PATH: "/usr/local/bin:/usr/bin:/bin" })!;
    for (const cmd of ["sh", "node", "npm", "mktemp", "tail", "sed", "grep", "dirname", "rm", "env", "cat", "touch"])
      symlinkSync(which(cmd), join(bin, cmd));
    const globalPrefix = join(dir, "global");
    const run = Bun.spawnSync(["sh", join(dir, "scripts/with-bun.sh"), "true"], {
      cwd: dir,
      env: {
        PATH: bin,
        HOME: dir,
        npm_config_registry: "http://127.0.0.1:9/",
        npm_config_prefix: globalPrefix,
        npm_config_cache: join(dir, "npm-cache"),
        npm_config_fetch_retries: "0",
        npm_config_fetch_timeout: "5000",
        npm_config_update_notifier: "false",
      },
      stderr: "pipe",
      stdout: "pipe",
    });
    const err = run.stderr.toString();
    expect(run.exitCode).toBe(1);
    expect(err).toContain("into .tools/ (npm's global prefix is left alone)");
    expect(err).toContain("npm said:");
    expect(err).toMatch(/npm error/);
    expect(err).toContain("reason: the npm registry (http://127.0.0.1:9/) could not be reached");
    expect(existsSync(globalPrefix) ? readdirSync(globalPrefix) : []).toEqual([]);
  }, 120_000);
});
