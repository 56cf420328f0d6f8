/**
 * A throwaway PostgreSQL cluster for tests and benchmarks (STACK-NOTES): Debian's
 * PostgreSQL 15 binaries, `initdb -A trust` in a temporary folder, a free port on
 * 127.0.0.1, fsync off, removed after. Commits stay synchronous (written to the WAL,
 * not fsynced), so `restart()` — an immediate stop, as a crash — loses no committed row. PostgreSQL refuses to run as root, so
 * as root every command runs as the `postgres` user (`runuser`).
 *
 *   const pg = await startPostgres();   // pg.url = postgres://postgres@127.0.0.1:PORT/atelier
 *   await pg.createDatabase("other");   // another empty database on the same cluster
 *   await pg.restart();                 // a fault test: immediate stop, start again
 *   await pg.restart(2000, "fast");     // or a clean shutdown (connections closed), down for 2 s
 *   await pg.stop();
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const PG_BIN = process.env.PG_BIN ?? findBin();

function findBin(): string {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return "";
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : "";
}

/** Whether PostgreSQL's server binaries are installed. */
export const hasPostgres = () => PG_BIN !== "" && existsSync(join(PG_BIN, "initdb"));

/**
 * Whether the PostgreSQL tests skip (saying so in their names): only without the binaries on a developer's machine.
 * Under CI (`CI` set: `npm test` installs PostgreSQL with apt first) they must exist, so a missing binary fails
 * those tests instead of hiding them.
 */
export const skipWithoutPostgres = () => !hasPostgres() && !process.env.CI;

export interface Postgres {
  url: string;
  port: number;
  dir: string;
  /** A URL for another database on this cluster (created empty). */
  createDatabase(name: string): Promise<string>;
  /** Stops the server at once (as a crash would; "fast": a clean shutdown) and starts it again on the same port. */
  restart(downMs?: number, mode?: StopMode): Promise<void>;
  stopServer(mode?: StopMode): Promise<void>;
  startServer(): Promise<void>;
  stop(): Promise<void>;
}

/** pg_ctl stop's mode: "immediate" is a crash (recovery at start), "fast" closes connections and shuts down cleanly. */
export type StopMode = "immediate" | "fast";

const asRoot = process.getuid?.() === 0;
const as = (cmd: string[]) => (asRoot ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd);

async function sh(cmd: string[], what: string): Promise<string> {
  const p = Bun.spawn(as(cmd), { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`${what} failed (${code}): ${err || out}`);
  return out;
}

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

export async function startPostgres(opts: { database?: string; maxConnections?: number } = {}): Promise<Postgres> {
  if (!hasPostgres()) throw new Error("PostgreSQL is not installed (apt-get install postgresql)");
  const dir = mkdtempSync(join(tmpdir(), "atelier-pg-"));
  chmodSync(dir, 0o777);
  if (asRoot) Bun.spawnSync(["chown", "-R", "postgres", dir]);
  const data = join(dir, "data");
  await sh([join(PG_BIN, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"], "initdb");
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=${opts.maxConnections ?? 200}`;
  const startServer = async () => {
    await sh(
      [join(PG_BIN, "pg_ctl"), "-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"],
      "pg_ctl start",
    );
  };
  const stopServer = async (mode: StopMode = "immediate") => {
    await sh([join(PG_BIN, "pg_ctl"), "-D", data, "-m", mode, "-w", "stop"], "pg_ctl stop").catch(() => {});
  };
  await startServer();
  const database = opts.database ?? "atelier";
  const createDatabase = async (name: string) => {
    await sh([join(PG_BIN, "createdb"), "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name], "createdb");
    return `postgres://postgres@127.0.0.1:${port}/${name}`;
  };
  const url = await createDatabase(database);
  let stopped = false;
  return {
    url,
    port,
    dir,
    createDatabase,
    startServer,
    stopServer,
    async restart(downMs = 0, mode: StopMode = "immediate") {
      await stopServer(mode);
      if (downMs > 0) await Bun.sleep(downMs);
      await startServer();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopServer();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
