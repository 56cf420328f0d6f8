#!/usr/bin/env bun
/**
 * `bun tests/bench/deep-pages-pieces.ts`: what a deep history page costs SQLite when nothing is cached, on a short
 * and a long history (docs/performance.md, "Deep history pages as history grows"). Two WAL files like the server's:
 * a user with 1,002 finished tasks and one with 100,200 (the growth bench's heavy users). Each pass opens a new
 * connection (cold SQLite page cache, cold process caches of history.server.ts; the file itself is in the OS cache,
 * as on a server that has run a while), reads page 1 (statements prepared) and then distinct random pages 50 %–98 %
 * deep with `historyPageJson`, measured.
 * Printed: CPU µs per page (`process.cpuUsage`, wall time is meaningless on a shared machine), per round, with and
 * without `PRAGMA mmap_size`, alternated in one run, and the load average.
 *
 *   bun tests/bench/deep-pages-pieces.ts [--rounds R] [--mmap BYTES]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "#db/client";
import { historyPageJson } from "~/domain/generations/history.server";
import { addUserRow } from "../support/services";
import { load } from "./harness";

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
const ROUNDS = Number(opt("rounds") ?? 4);
const MMAP = Number(opt("mmap") ?? 256 * 1024 * 1024);
const PAGE_SIZE = 20;
const PAGES_PER_SIDE = 400;
const work = mkdtempSync(join(tmpdir(), "atelier-deep-pages-"));

/** A database whose one user has `tasks` finished tasks (the growth bench's rows), checkpointed and closed. */
async function history(name: string, tasks: number) {
  const path = join(work, `${name}.db`);
  const db = openDatabase(path);
  const userId = await addUserRow(db, Date.now());
  const base = Date.now() - 86_400_000 - tasks * 1000;
  for (let from = 0; from < tasks; from += 10_000) {
    const last = Math.min(from + 10_000, tasks) - 1;
    await db
      .raw(
        `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, result_urls, credits_cost, deadline_at, created_at, started_at, completed_at)
         WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${last})
         SELECT 'h-' || i, ?, 'image', 'replicate', 'black-forest-labs/flux-schnell',
           'seeded prompt ' || i || ': a lighthouse at dusk, oil on canvas', 'completed',
           '["http://127.0.0.1/media/h-' || i || '/0.png"]', 3, ${base} + i * 1000 + 600000,
           ${base} + i * 1000, ${base} + i * 1000 + 500, ${base} + i * 1000 + 2000 FROM n`,
      )
      .run(userId);
  }
  await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").many();
  await db.close();
  return { name, path, userId, tasks };
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** CPU µs per page over PAGES_PER_SIDE distinct deep pages, a new connection whenever the distinct pages run out. */
async function measure(side: Awaited<ReturnType<typeof history>>, mmap: number) {
  const pages = Math.floor(side.tasks / PAGE_SIZE);
  const deep = Array.from({ length: Math.floor(pages * 0.48) }, (_, i) => Math.floor(pages * 0.5) + i);
  let spent = 0;
  let read = 0;
  while (read < PAGES_PER_SIDE) {
    const db = openDatabase(side.path, { migrate: false });
    if (mmap > 0) await db.raw(`PRAGMA mmap_size = ${mmap}`).many();
    // Statements prepared outside the measure (page 1 is not among the deep pages).
    await historyPageJson(db, side.userId, { page: 1, pageSize: PAGE_SIZE });
    for (const page of deep.sort(() => Math.random() - 0.5).slice(0, PAGES_PER_SIDE - read)) {
      const t0 = cpuMs();
      const text = await historyPageJson(db, side.userId, { page, pageSize: PAGE_SIZE });
      spent += cpuMs() - t0;
      if (!text.includes(`"total":${side.tasks}`)) throw new Error(`${side.name} page ${page}: ${text.slice(0, 200)}`);
      read++;
    }
    await db.close();
  }
  return (spent * 1000) / read;
}

try {
  const sides = [await history("small", 1002), await history("large", 100_200)];
  const best = new Map<string, number[]>();
  const loads = [load()];
  for (let round = 0; round < ROUNDS; round++)
    for (const mmap of [0, MMAP])
      for (const side of sides) {
        const k = `${side.name} (${side.tasks.toLocaleString("en")} tasks), mmap_size ${mmap}`;
        best.set(k, [...(best.get(k) ?? []), await measure(side, mmap)]);
      }
  loads.push(load());
  console.log(`CPU µs per cold deep page (${PAGES_PER_SIDE} pages per point); load average ${loads.join(" → ")}`);
  console.log("| database | rounds | lowest |\n|---|---|---|");
  for (const [k, v] of best)
    console.log(`| ${k} | ${v.map((x) => x.toFixed(0)).join(", ")} | ${Math.min(...v).toFixed(0)} |`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
