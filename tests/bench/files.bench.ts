/**
 * Input files: the time to judge and clean a 20 MB picture in process (PNG, JPEG), and upload throughput over HTTP
 * against the built server (POST /api/files with a key: 20 × 1 MB PNGs, then 5 × 19 MB). Run once:
 * `bun run build && bun tests/bench/files.bench.ts`; report with the load average (printed).
 */
import { loadavg } from "node:os";
import { inspectImage } from "~/domain/files/image.server";
import { Client, uniqueEmail } from "../support/client";
import { concat, jpeg, png } from "../support/images";
import { startServer } from "../support/server";

const MB = 1024 * 1024;
const ms = (t0: number) => (performance.now() - t0).toFixed(1);

/** A JPEG whose scan holds `n` bytes of entropy-coded data (0xFF stuffed as the format requires). */
function bigJpeg(n: number): Uint8Array<ArrayBuffer> {
  const base = jpeg(2500, 2500);
  const scan = new Uint8Array(n);
  for (let i = 0; i < n; i++) scan[i] = (i * 2654435761) >>> 24;
  for (let i = 0; i < n - 1; i++) if (scan[i] === 0xff) scan[++i] = 0;
  const eoi = base.length - 2;
  return concat(base.subarray(0, eoi), scan, base.subarray(eoi));
}

const bigPng = png(2580, 2580, { fill: (i) => (i * 2654435761) >>> 24, level: 0 });
const jpg = bigJpeg(20 * MB - 1024);
for (const [name, bytes] of [
  ["PNG", bigPng],
  ["JPEG", jpg],
] as const) {
  inspectImage(bytes); // warm
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    inspectImage(bytes);
    runs.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  console.log(
    `validate ${name} ${(bytes.byteLength / MB).toFixed(1)} MB: median ${runs[2]!.toFixed(1)} ms (min ${runs[0]!.toFixed(1)})`,
  );
}
const bomb = png(100_000, 100_000, { rows: 1 });
let t0 = performance.now();
for (let i = 0; i < 1000; i++) {
  try {
    inspectImage(bomb);
  } catch {}
}
console.log(`refuse a 100000×100000 header: ${(((performance.now() - t0) / 1000) * 1000).toFixed(1)} µs each`);

const server = await startServer({
  env: { JOBS: "off", FILE_UPLOAD_LIMIT: "10000", FILE_QUOTA_MB: "100000", RATE_LIMIT_STANDARD: "100000" },
});
try {
  const api = new Client(server.url);
  const { cookie } = await api.signUp(uniqueEmail("bench"));
  const key = (await api.post("/api/keys/create", { name: "bench" }, { cookie })).body.data.key as string;
  const send = async (bytes: Uint8Array<ArrayBuffer>) => {
    const form = new FormData();
    form.append("file", new Blob([bytes]), "a.png");
    const res = await fetch(`${server.url}/api/files`, { method: "POST", headers: { "x-api-key": key }, body: form });
    if (res.status !== 200) throw new Error(`upload: HTTP ${res.status} ${await res.text()}`);
  };
  // A different picture each time: the same one again is the file already stored (docs/api.md §4.17), a lookup.
  const noise = (side: number, seed: number) =>
    png(side, side, { fill: (i) => ((i + seed) * 2654435761) >>> 24, level: 0 });
  for (const [label, side, n] of [
    ["PNG 590×590", 590, 20],
    ["PNG 2580×2580", 2580, 5],
  ] as const) {
    await send(noise(side, -1));
    const pictures = Array.from({ length: n }, (_, i) => noise(side, i));
    const size = pictures[0]!.byteLength;
    t0 = performance.now();
    for (const p of pictures) await send(p);
    const s = (performance.now() - t0) / 1000;
    console.log(
      `upload ${label} (${(size / MB).toFixed(2)} MB) × ${n} (one at a time): ${(n / s).toFixed(1)} files/s, ${((n * size) / MB / s).toFixed(1)} MB/s, ${ms(t0)} ms total`,
    );
    t0 = performance.now();
    for (let i = 0; i < n; i++) await send(pictures[0]!);
    console.log(`  the same picture again × ${n}: ${(n / ((performance.now() - t0) / 1000)).toFixed(1)} files/s`);
  }
} finally {
  await server.dispose();
}
console.log(
  `load average: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
