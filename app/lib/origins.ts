/**
 * The origins a browser may use to reach this server (docs/decisions/137-loopback-aliases.md): PUBLIC_URL's, and —
 * only when PUBLIC_URL is a loopback address — the same scheme and port on the other loopback names (`localhost`,
 * `127.0.0.1`, `[::1]`). A server that printed `http://localhost:3000` is often opened as `http://127.0.0.1:3000`;
 * no other machine can be at either, so accepting both gives an attacker nothing.
 */
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.includes(hostname.toLowerCase());
}

/** PUBLIC_URL's origin and, when it is loopback, its aliases on the other loopback names; PUBLIC_URL's first. */
export function publicOriginAliases(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  if (!isLoopbackHost(url.hostname)) return [url.origin];
  const port = url.port ? `:${url.port}` : "";
  const others = LOOPBACK_HOSTS.filter((h) => h !== url.hostname.toLowerCase()).map(
    (h) => `${url.protocol}//${h}${port}`,
  );
  return [url.origin, ...others];
}
