// Preloaded by `bun test` (bunfig.toml). Unit tests log nothing unless asked.
import { afterAll } from "bun:test";

process.env.LOG_LEVEL ??= "silent";

// The PostgreSQL run (ATELIER_TEST_PG=1): a cluster this process started for its test servers stops after the last file.
if (process.env.ATELIER_TEST_PG === "1") {
  const { stopTestCluster } = await import("./support/engine");
  afterAll(stopTestCluster);
}
