/**
 * The evidence area for apparent child sexual abuse material (18 U.S.C. §2258A(h): a provider that reports keeps
 * what it reported for one year). A removal for the `sexual_minors` reason copies the result's bytes here before they
 * leave storage: DATA_DIR/quarantine/<gen_id>/, folder 0700 and files 0600 (the server's own user only; never
 * served over HTTP), with a manifest naming each file's original URL, size and SHA-256. docs/safety.md.
 */
import { createHash } from "node:crypto";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface EvidenceFile {
  url: string;
  file: string;
  bytes: number;
  sha256: string;
}

export const quarantineDirOf = (dataDir: string) => join(dataDir, "quarantine");

/** Copies each readable result into the quarantine area; returns what it kept. */
export async function quarantineResults(
  dataDir: string,
  genId: string,
  urls: string[],
  read: (url: string) => Promise<Uint8Array | null>,
  meta: Record<string, unknown>,
): Promise<EvidenceFile[]> {
  const root = quarantineDirOf(dataDir);
  const dir = join(root, genId.replace(/[^A-Za-z0-9_-]/g, "_"));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(root, 0o700);
  await chmod(dir, 0o700);
  const kept: EvidenceFile[] = [];
  for (const [i, url] of urls.entries()) {
    const bytes = await read(url);
    if (!bytes) continue;
    const ext = /\.([A-Za-z0-9]{1,5})(?:$|\?)/.exec(new URL(url).pathname)?.[1] ?? "bin";
    const file = `${i}.${ext}`;
    await writeFile(join(dir, file), bytes, { mode: 0o600 });
    kept.push({ url, file, bytes: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex") });
  }
  await writeFile(join(dir, "manifest.json"), `${JSON.stringify({ gen_id: genId, ...meta, files: kept }, null, 2)}\n`, {
    mode: 0o600,
  });
  return kept;
}
