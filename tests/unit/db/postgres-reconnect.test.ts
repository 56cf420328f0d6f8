/**
 * postgres.js under Bun after PostgreSQL restarts with writes in flight (patches/postgres@3.4.9.patch). A connection
 * that dies with a small write still buffered (its flush waits for setImmediate) must not hand those bytes, or the
 * timer's stale handle, to its next connection: the startup message would be appended to them and never flushed,
 * and every query on that slot would wait out connect_timeout (10 s) against a healthy server.
 *
 * That needs the server's last bytes and its close handled in one turn of the event loop, which a loaded machine
 * does now and then (a chaos run saw it after a fast restart). The sockets here make it likely: each
 * answer is handed over a moment late, and the close right behind the last one — the same events, in the order
 * a busy loop delivers them. The client has the app's settings (pool of 10, db/client.ts's timeout and backoff).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import postgres from "postgres";
import { PG_CONNECT_TIMEOUT_S, pgReconnectBackoff } from "#db/postgres";
import { type Postgres, skipWithoutPostgres, startPostgres } from "../../support/postgres";

const skip = skipWithoutPostgres();
let pg: Postgres;

beforeAll(async () => {
  if (!skip) pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  await pg?.stop();
});

/**
 * Every socket to PostgreSQL's port hands its data over up to 2 ms late, and its end with the last of it (a close
 * right behind). On the prototype, so postgres.js connects, fails and reconnects through its own code paths.
 */
function lateSockets(port: number): () => void {
  const proto = net.Socket.prototype as unknown as { emit: (this: net.Socket, e: string, ...a: unknown[]) => boolean };
  const original = proto.emit;
  const state = new WeakMap<
    net.Socket,
    { held: unknown[]; timer: ReturnType<typeof setTimeout> | null; closed: boolean }
  >();
  proto.emit = function (event, ...args) {
    if (this.remotePort !== port && !state.has(this)) return original.call(this, event, ...args);
    let s = state.get(this);
    if (!s) state.set(this, (s = { held: [], timer: null, closed: false }));
    const flush = () => {
      if (s.timer) clearTimeout(s.timer);
      s.timer = null;
      const chunks = s.held;
      s.held = [];
      for (const chunk of chunks) original.call(this, "data", chunk);
    };
    if (event === "data") {
      s.held.push(args[0]);
      s.timer ??= setTimeout(flush, 2);
      return true;
    }
    if (event === "end") {
      flush();
      const r = original.call(this, "end", ...args);
      s.closed = true;
      original.call(this, "close", false);
      return r;
    }
    if (event === "close") {
      if (s.closed) return true;
      flush();
    }
    return original.call(this, event, ...args);
  };
  return () => {
    proto.emit = original;
  };
}

describe("postgres.js reconnects after a restart with writes in flight", () => {
  test.skipIf(skip)(
    "three fast restarts under 40 writers: no query waits for the connect timeout, writes go on within a second",
    async () => {
      const restore = lateSockets(Number(new URL(pg.url).port));
      const sql = postgres(pg.url, {
        max: 10,
        connect_timeout: PG_CONNECT_TIMEOUT_S,
        backoff: pgReconnectBackoff,
        onnotice: () => {},
      });
      await sql`CREATE TABLE writes (id serial PRIMARY KEY, worker int NOT NULL, note text NOT NULL)`;
      let stop = false;
      const timeouts: string[] = [];
      const slow: string[] = [];
      let lastWrite = 0;
      const worker = async (n: number) => {
        for (let i = 0; !stop; i++) {
          const t0 = performance.now();
          try {
            // A statement new to its connection is described first: a shutdown's error during it queues a Sync,
            // and a described one queues its Bind/Execute — small writes waiting for their flush.
            await sql.unsafe(`INSERT INTO writes (worker, note) VALUES ($1, $2) -- ${n}-${i}`, [n, `w${n}-${i}`]);
            lastWrite = performance.now();
          } catch (error) {
            if ((error as { code?: string }).code === "CONNECT_TIMEOUT") timeouts.push(`writer ${n}`);
            await Bun.sleep(5);
          }
          const ms = performance.now() - t0;
          if (ms > 3000) slow.push(`writer ${n}: ${Math.round(ms)} ms`);
        }
      };
      const writers = Array.from({ length: 40 }, (_, n) => worker(n));
      const recovery: number[] = [];
      try {
        for (let round = 0; round < 3; round++) {
          await Bun.sleep(300);
          await pg.restart(300, "fast");
          const back = performance.now();
          while (lastWrite < back && performance.now() - back < 15_000) await Bun.sleep(10);
          recovery.push(Math.round(performance.now() - back));
          await Bun.sleep(1500);
        }
      } finally {
        stop = true;
        // A writer stuck on a stale slot ends only when its connect timeout fires.
        await Promise.all(writers);
        await sql.end({ timeout: 1 });
        restore();
      }
      console.log(`[postgres-reconnect] writes again ${recovery.join(", ")} ms after each restart`);
      expect(timeouts).toEqual([]);
      expect(slow).toEqual([]);
      for (const ms of recovery) expect(ms).toBeLessThan(1000);
    },
    120_000,
  );
});
