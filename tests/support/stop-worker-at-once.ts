/**
 * A supervisor that stops `atelier worker` with SIGTERM the moment it reads "worker started", on a fresh data folder
 * each round. Prints one JSON line: {rounds, failures: [{round, code, graceful}]}. Run as its own process (as a real
 * supervisor is): under `bun test` the race it looks for does not show.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atelierCommand } from "./server";

const rounds = Number(process.argv[2] ?? 15);
const failures: { round: number; code: number; graceful: boolean }[] = [];
for (let round = 0; round < rounds; round++) {
  const dataDir = mkdtempSync(join(tmpdir(), "atelier-worker-stop-"));
  try {
    const worker = Bun.spawn([...atelierCommand(), "worker"], {
      cwd: dataDir,
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "info" },
      stdout: "pipe",
      stderr: "ignore",
    });
    const reader = (worker.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    let stopped = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
      if (!stopped && out.includes('"msg":"worker started"')) {
        worker.kill("SIGTERM");
        stopped = true;
      }
    }
    const code = await worker.exited;
    const graceful = out.includes('"msg":"shutting down"');
    if (code !== 0 || !graceful) failures.push({ round, code, graceful });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
console.log(JSON.stringify({ rounds, failures }));
