/**
 * A throwaway self-signed certificate (openssl, as tests/support/nginx.ts makes one) for a local HTTPS server a test
 * starts: valid one day for `localhost` and 127.0.0.1. A server under test trusts it through NODE_EXTRA_CA_CERTS
 * (`certPath`), which Bun's fetch honours like Node's; nothing in the code under test turns verification off.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SelfSigned {
  cert: string;
  key: string;
  /** The certificate's PEM file: what NODE_EXTRA_CA_CERTS points at. */
  certPath: string;
  /** The private key's PEM file (what a server's config names). */
  keyPath: string;
  remove(): void;
}

export function selfSignedCertificate(name = "localhost"): SelfSigned {
  const dir = mkdtempSync(join(tmpdir(), "atelier-tls-"));
  const certPath = join(dir, "cert.pem");
  const keyPath = join(dir, "key.pem");
  const made = Bun.spawnSync(
    [
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      `/CN=${name}`,
      "-addext",
      `subjectAltName=DNS:${name},IP:127.0.0.1`,
      "-days",
      "1",
      "-keyout",
      keyPath,
      "-out",
      certPath,
    ],
    { stderr: "pipe" },
  );
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  return {
    cert: readFileSync(certPath, "utf8"),
    key: readFileSync(keyPath, "utf8"),
    certPath,
    keyPath,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
