/**
 * The signer's key and certificate chain (docs/provenance.md): the operator's (C2PA_SIGNING_KEY, C2PA_CERT_CHAIN —
 * PEM text or a path to a PEM file), or, when none is configured, a self-signed development signer made once at
 * first start into `<data dir>/c2pa/` (an ES256 key and a certificate with the key usages C2PA asks for). A
 * self-signed signer makes manifests that validate but that no reader trusts; production sets its own.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { credentialsFromPem, type SigningCredentials } from "./cose.server";

function pemOrFile(value: string): string {
  return value.includes("-----BEGIN") ? value : readFileSync(value, "utf8");
}

export function devSigner(dir: string): { keyPath: string; certPath: string } {
  const keyPath = join(dir, "dev-signer.key.pem");
  const certPath = join(dir, "dev-signer.cert.pem");
  if (existsSync(keyPath) && existsSync(certPath)) return { keyPath, certPath };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const run = (args: string[]) => {
    const r = Bun.spawnSync(["openssl", ...args], { stderr: "pipe", stdout: "ignore" });
    if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString().trim()}`);
  };
  run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath]);
  run([
    "req", "-new", "-x509", "-key", keyPath, "-out", certPath, "-days", "3650",
    "-subj", "/CN=Atelier development signer/O=Atelier (self-signed, not trusted)",
    "-addext", "basicConstraints=critical,CA:false",
    "-addext", "keyUsage=critical,digitalSignature",
    "-addext", "extendedKeyUsage=emailProtection",
  ]); // biome-ignore format: one flag a line reads worse here
  return { keyPath, certPath };
}

export function loadSigningCredentials(opts: { key?: string; chain?: string; dataDir: string }): SigningCredentials {
  if (opts.key || opts.chain) {
    if (!opts.key || !opts.chain)
      throw new Error("C2PA_SIGNING_KEY and C2PA_CERT_CHAIN are set together or not at all");
    return credentialsFromPem(pemOrFile(opts.key), pemOrFile(opts.chain));
  }
  const dev = devSigner(join(opts.dataDir, "c2pa"));
  return credentialsFromPem(readFileSync(dev.keyPath, "utf8"), readFileSync(dev.certPath, "utf8"));
}
