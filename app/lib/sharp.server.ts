/**
 * Loads sharp (libvips) once, for the result renditions (docs/media.md, docs/decisions/150-renditions-with-sharp.md).
 * From node_modules it loads as it is. Inside the compiled executable, `bun build --compile` embeds sharp's `.node`
 * addon (required by a literal path in sharp's CommonJS build), but that addon finds libvips-cpp.so through an rpath
 * relative to node_modules, which the executable has none of: `bun run compile` embeds the library as a file; it is
 * written to a new private folder (never a guessable path in a shared /tmp, which another user could fill first),
 * opened before the addon, so the addon finds its dependency loaded, and removed at once (the mapping stays).
 * Null when sharp cannot load (an unsupported platform): results then keep their originals only.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type SharpModule from "sharp";

export type Sharp = typeof SharpModule;

let loaded: { sharp: Sharp | null; error?: string } | undefined;

type Embedded = Blob & { name: string };

async function openEmbeddedLibvips(): Promise<void> {
  const embedded = (Bun.embeddedFiles as Embedded[]).find((f) => f.name.includes("libvips-cpp"));
  if (!embedded) return;
  const dir = mkdtempSync(join(tmpdir(), "atelier-libvips-"));
  try {
    const path = join(dir, embedded.name);
    writeFileSync(path, new Uint8Array(await embedded.arrayBuffer()), { mode: 0o700 });
    const { dlopen, FFIType } = await import("bun:ffi");
    dlopen(path, { vips_version: { args: [FFIType.i32], returns: FFIType.i32 } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** sharp, or null with the reason it could not load (logged once by the caller). */
export async function loadSharp(): Promise<{ sharp: Sharp | null; error?: string }> {
  if (loaded) return loaded;
  try {
    if (Bun.embeddedFiles.length > 0) await openEmbeddedLibvips();
    // CommonJS on purpose: its `require("@img/sharp-<platform>/sharp.node")` is what the compiler can embed.
    const sharp = require("sharp") as Sharp;
    // One picture at a time, on one of libuv's threads: the other core keeps serving requests.
    sharp.concurrency(1);
    sharp.cache(false);
    loaded = { sharp };
  } catch (error) {
    loaded = { sharp: null, error: String(error) };
  }
  return loaded;
}
