/** File modes of the SQLite database: it holds sessions and key hashes, so only its owner reads it. */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** The database file (and its folder, 0700 when new) readable by this user only: it holds sessions and key hashes. */
export function privateFile(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (existsSync(path)) ownerOnly(path);
  else writeFileSync(path, "", { mode: 0o600, flag: "a" });
}

/** chmod 0600 when the file exists and is ours (another user's file is left alone). */
export function ownerOnly(file: string): void {
  try {
    chmodSync(file, 0o600);
  } catch {}
}
