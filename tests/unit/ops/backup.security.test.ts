/**
 * `atelier backup` writes a copy of every session and key hash: the file must never be readable by others, not even
 * while it is being written (VACUUM INTO and pg_dump create their output themselves, with the process umask), and a
 * folder made for it is 0700. A watcher thread samples the file's mode while a ~24 MB database is copied.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "#db/client";
import { backupDatabase, backupPostgres } from "~/server/backup.server";

let dir: string;
let previousUmask: number;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "atelier-backup-mode-"));
  previousUmask = process.umask(0o022); // the usual umask: files 0644, folders 0755
  const seed = new Database(join(dir, "atelier.db"));
  seed.run("CREATE TABLE filler (id INTEGER PRIMARY KEY, blob BLOB)");
  const insert = seed.prepare("INSERT INTO filler (blob) VALUES (randomblob(65536))");
  seed.transaction(() => {
    for (let i = 0; i < 384; i++) insert.run();
  })();
  seed.close();
});
afterAll(() => {
  process.umask(previousUmask);
  rmSync(dir, { recursive: true, force: true });
});

/** Samples `file`'s permission bits from another thread until stopped; the set of modes seen. */
function watchMode(file: string) {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const source = `
    const { statSync } = require("node:fs");
    self.onmessage = ({ data: { file, stop } }) => {
      const seen = new Set();
      while (Atomics.load(stop, 0) === 0) {
        try { seen.add(statSync(file).mode & 0o777); } catch {}
      }
      postMessage([...seen]);
    };`;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "application/javascript" })));
  const modes = new Promise<number[]>((resolve) => {
    worker.onmessage = (e) => resolve(e.data as number[]);
  });
  worker.postMessage({ file, stop });
  return async () => {
    Atomics.store(stop, 0, 1);
    const seen = await modes;
    worker.terminate();
    return seen.map((m) => m.toString(8));
  };
}

describe("atelier backup on SQLite", () => {
  test("the copy is 0600 from its first byte, in a new folder made 0700", async () => {
    const db = openDatabase(join(dir, "atelier.db"), { migrate: false });
    const target = join(dir, "new-folder", "nested", "copy.db");
    const stopWatching = watchMode(target);
    await Bun.sleep(50);
    try {
      const result = backupDatabase(db, target);
      expect(result.bytes).toBeGreaterThan(20_000_000);
    } finally {
      db.close();
    }
    const seen = await stopWatching();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual(["600"]);
    expect((statSync(join(dir, "new-folder")).mode & 0o777).toString(8)).toBe("700");
    expect((statSync(join(dir, "new-folder", "nested")).mode & 0o777).toString(8)).toBe("700");
    expect(process.umask()).toBe(0o022); // given back
  }, 60_000);
});

describe("atelier backup on PostgreSQL", () => {
  test("pg_dump writes into a file that is 0600 before it starts, with umask 077", async () => {
    const bin = join(dir, "bin");
    const seenBy = join(dir, "seen-by-pg-dump");
    const fake = `#!/bin/sh
for a in "$@"; do case "$a" in --file=*) f="\${a#--file=}";; esac; done
echo "umask=$(umask) mode=$(stat -c %a "$f" 2>/dev/null || echo missing)" > "${seenBy}"
echo dump > "$f"
`;
    Bun.spawnSync(["mkdir", "-p", bin]);
    writeFileSync(join(bin, "pg_dump"), fake);
    chmodSync(join(bin, "pg_dump"), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      await backupPostgres("postgres://u:secret@127.0.0.1:1/atelier", join(dir, "pg-folder", "copy.dump"));
    } finally {
      process.env.PATH = path;
    }
    expect(readFileSync(seenBy, "utf8").trim()).toBe("umask=0077 mode=600");
    expect((statSync(join(dir, "pg-folder", "copy.dump")).mode & 0o777).toString(8)).toBe("600");
    expect((statSync(join(dir, "pg-folder")).mode & 0o777).toString(8)).toBe("700");
  });
});
