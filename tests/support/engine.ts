/**
 * Which engine the integration suite runs on. `bun test tests/integration` runs
 * on SQLite; with `ATELIER_TEST_PG=1` (scripts/test.ts's second run) every
 * startServer() gets its own fresh database in one shared throwaway PostgreSQL
 * cluster, plus DATABASE_URL and BETTER_AUTH_SECRET.
 *
 * The cluster is the one scripts/test.ts started (`ATELIER_TEST_PG_URL`, a URL of
 * its maintenance database) or, when files run without it, one started here on
 * first use and stopped after the last test (tests/setup.ts calls stopTestCluster).
 */

import { test } from "bun:test";
import { randomUUID } from "node:crypto";
import type { Sql } from "postgres";
import { type Postgres, startPostgres } from "./postgres";

export const onPostgres = process.env.ATELIER_TEST_PG === "1";
export const engineName = onPostgres ? "postgres" : "sqlite";

/** A test only SQLite has (file permissions, the file lock, WAL, VACUUM INTO): skipped on the PostgreSQL run, saying why. */
export function sqliteOnly(reason: string): typeof test {
  if (!onPostgres) return test;
  const skip = ((name: string, fn: any, opts?: any) =>
    test.skip(`${name} [skipped on PostgreSQL: ${reason}]`, fn, opts)) as typeof test;
  return skip;
}

/** The same for a test that needs PostgreSQL (the multi-node and PostgreSQL-restart tests). */
export function postgresOnly(reason: string): typeof test {
  if (onPostgres) return test;
  return ((name: string, fn: any, opts?: any) =>
    test.skip(`${name} [skipped on SQLite: ${reason}]`, fn, opts)) as typeof test;
}

let cluster: Promise<{ admin: Sql; base: string; pg?: Postgres }> | undefined;

/** The shared cluster: an admin connection and the URL prefix of its databases. */
export function testCluster() {
  cluster ??= (async () => {
    const { default: postgres } = await import("postgres");
    let adminUrl = process.env.ATELIER_TEST_PG_URL;
    let pg: Postgres | undefined;
    if (!adminUrl) {
      pg = await startPostgres({ maxConnections: 400 });
      adminUrl = pg.url.replace(/\/[^/]*$/, "/postgres");
    }
    const admin = postgres(adminUrl, { max: 2, onnotice: () => {} });
    return { admin, base: adminUrl.replace(/\/[^/]*$/, "/"), pg };
  })();
  return cluster;
}

/** Ends the admin connection and stops the cluster if this process started it (after the last test file). */
export async function stopTestCluster(): Promise<void> {
  if (!cluster) return;
  const { admin, pg } = await cluster;
  cluster = undefined;
  await admin.end({ timeout: 1 });
  await pg?.stop();
}

/** A new empty database in the shared cluster; returns its URL. */
export async function createTestDatabase(tag = "it"): Promise<string> {
  const { admin, base } = await testCluster();
  const name = `${tag}_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  return base + name;
}

/** Drops a database made by createTestDatabase (its connections are cut). */
export async function dropTestDatabase(url: string): Promise<void> {
  const { admin } = await testCluster();
  const name = url.slice(url.lastIndexOf("/") + 1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`not a test database: ${url}`);
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
