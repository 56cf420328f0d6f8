/**
 * Pre-compresses the client build: beside every text asset of build/client a `.br` (brotli, quality 11) and a
 * `.gz` (gzip, level 9) when they are smaller. The server answers them by content negotiation
 * (app/server/static-files.server.ts) and the compiled executable embeds them with the rest of `build/`, so no
 * request pays for compression. Run by `bun run build`.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const COMPRESSIBLE = /\.(js|mjs|css|html|json|svg|txt|xml|map|webmanifest|wasm)$/;
const MIN_BYTES = 512;

const root = process.argv[2] ?? join(import.meta.dir, "../build/client");
let before = 0;
let afterBr = 0;
let count = 0;
const walk = (dir: string) => {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full);
    else if (COMPRESSIBLE.test(name) && statSync(full).size >= MIN_BYTES) compress(full);
  }
};
function compress(file: string) {
  const raw = readFileSync(file);
  const br = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });
  const gz = gzipSync(raw, { level: 9 });
  if (br.length < raw.length) writeFileSync(`${file}.br`, br);
  if (gz.length < raw.length) writeFileSync(`${file}.gz`, gz);
  before += raw.length;
  afterBr += Math.min(br.length, raw.length);
  count++;
}
walk(root);
console.log(
  `compressed ${count} assets: ${(before / 1024).toFixed(0)} KiB → ${(afterBr / 1024).toFixed(0)} KiB (brotli)`,
);
