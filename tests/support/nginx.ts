/**
 * A real nginx (Debian's apt package; `bun run test` installs it) terminating TLS in front of test servers, run
 * unprivileged (`nginx -p <dir> -c <dir>/nginx.conf`, `daemon off;`) with a self-signed certificate for localhost
 * (tests/support/tls.ts). The blocks come from docs/self-hosting.md, so the documented setup is the tested one.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, ROOT } from "./server";
import { selfSignedCertificate } from "./tls";

const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";

/** The ```nginx block of docs/self-hosting.md right after `<!-- <marker>: tested by <file> -->`. */
export function documentedNginx(marker: string): string {
  const doc = readFileSync(join(ROOT, "docs/self-hosting.md"), "utf8");
  const at = doc.indexOf(`<!-- ${marker}: tested by `);
  const block = at < 0 ? undefined : /-->\s*```nginx\n([\s\S]*?)```/.exec(doc.slice(at))?.[1];
  if (!block) throw new Error(`docs/self-hosting.md has no tested nginx block "${marker}"`);
  return block;
}

export interface Nginx {
  /** https://localhost:<port> */
  site: string;
  /** The certificate to trust (`fetch(url, { tls: { ca } })`). */
  ca: string;
  logs: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts nginx with `http { … }` holding what `adapt` returns for the documented block: it gets the block, the
 * port to listen on and the certificate files, and replaces what the test must (name, port, paths, upstreams).
 * Resolves once `GET /api/health` answers 200 through it.
 */
export async function startNginx(
  block: string,
  adapt: (block: string, t: { port: number; cert: string; key: string }) => string,
  opts: { port?: number } = {},
): Promise<Nginx> {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: apt-get install nginx (bun run test installs it)`);
  const dir = mkdtempSync(join(tmpdir(), "atelier-nginx-"));
  const tls = selfSignedCertificate();
  const { certPath: cert, keyPath: key, cert: ca } = tls;
  const port = opts.port ?? (await freePort());
  const site = `https://localhost:${port}`;
  const temps = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"];
  for (const d of temps) mkdirSync(join(dir, "tmp", d), { recursive: true });
  const temp = temps.map((d) => `  ${d}_temp_path ${join(dir, "tmp", d)};`).join("\n");
  writeFileSync(
    join(dir, "nginx.conf"),
    `daemon off;\nmaster_process off;\npid ${join(dir, "nginx.pid")};\nerror_log stderr warn;\nevents { worker_connections 256; }\nhttp {\n  access_log off;\n${temp}\n${adapt(block, { port, cert, key })}\n}\n`,
  );
  let log = "";
  const nginx: Subprocess = Bun.spawn([NGINX, "-p", dir, "-c", join(dir, "nginx.conf")], {
    stdout: "pipe",
    stderr: "pipe",
  });
  void new Response(nginx.stderr as ReadableStream).text().then((t) => (log += t));
  const stop = async () => {
    nginx.kill();
    await nginx.exited;
    rmSync(dir, { recursive: true, force: true });
    tls.remove();
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${site}/api/health`, { tls: { ca } })).ok) break;
    } catch {}
    if (nginx.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not come up (exit ${nginx.exitCode}): ${log}`);
    }
    await Bun.sleep(25);
  }
  return { site, ca, logs: () => log, stop };
}

/** The documented block's listen line, name and certificate paths, for this run (the rest stays as documented). */
export function onLocalhost(block: string, t: { port: number; cert: string; key: string }): string {
  return block
    .replace(/listen 443 ssl( http2)?;/, `listen 127.0.0.1:${t.port} ssl$1;`)
    .replaceAll("atelier.example.com", "localhost")
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${t.cert};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${t.key};`);
}
