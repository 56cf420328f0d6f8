/**
 * Result files on local disk under DATA_DIR/media, served by Atelier itself at
 * `/media/<key>` (app/routes/media.ts). Keys look like `<gen_id>/0-<random>.png`.
 */
import { rm } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import type { ResultStorage } from "./types";

/** Keys are path segments of safe characters only: no `..`, no absolute paths. */
const SAFE_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

export function isSafeKey(key: string): boolean {
  return key.length <= 256 && SAFE_KEY.test(key) && !key.split("/").some((s) => s === ".." || s === ".");
}

/** The file behind a key, or null when the key is not a safe relative path inside `root`. */
export function resolveKey(root: string, key: string): string | null {
  if (!isSafeKey(key)) return null;
  const base = resolve(root);
  const full = resolve(base, key);
  return full.startsWith(base + sep) ? full : null;
}

export class LocalStorage implements ResultStorage {
  readonly kind = "local" as const;
  constructor(
    readonly root: string,
    /** Absolute origin + path prefix of the URLs, e.g. `https://atelier.example/media`. */
    readonly publicBase: string,
  ) {}

  async put(key: string, bytes: Uint8Array, _contentType: string): Promise<string> {
    const file = resolveKey(this.root, key);
    if (!file) throw new Error(`unsafe storage key: ${key}`);
    await Bun.write(file, bytes); // creates missing folders
    return `${this.publicBase}/${key}`;
  }

  async read(url: string): Promise<Uint8Array | null> {
    if (!url.startsWith(`${this.publicBase}/`)) return null;
    const file = resolveKey(this.root, url.slice(this.publicBase.length + 1));
    return file ? new Uint8Array(await Bun.file(file).arrayBuffer()) : null;
  }

  async deletePrefix(prefix: string): Promise<void> {
    const dir = resolveKey(this.root, prefix.replace(/\/+$/, ""));
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

export const mediaBase = (publicUrl: string) => `${publicUrl.replace(/\/+$/, "")}/media`;
export const localStorageFor = (mediaDir: string, publicUrl: string) =>
  new LocalStorage(join(mediaDir), mediaBase(publicUrl));
