/**
 * Safe outbound HTTP for URLs that someone else chose (a provider's result
 * URL, a user's webhook): the server must not become a way into its own
 * network (SSRF) or run out of memory on a huge body.
 *
 * - Every hop's host is resolved here and *every* address it resolves to must
 *   be public unicast: loopback, RFC 1918, CGNAT (100.64/10), link-local
 *   (cloud metadata 169.254.169.254), multicast, unspecified, broadcast,
 *   reserved, IPv6 unique-local/link-local and IPv6 forms that embed an IPv4
 *   address (::ffff:a.b.c.d is judged as a.b.c.d; NAT64, 6to4, Teredo are
 *   refused) are refused.
 * - The connection goes to the address that was checked (the URL's host is
 *   replaced by the IP; `Host` and TLS SNI / certificate name stay the real
 *   name), so a second DNS answer cannot swap in another address (rebinding).
 * - Redirects are followed by hand, each hop checked again, at most
 *   `maxRedirects` (0: a 3xx is returned as is — webhooks). With `httpsOnly`
 *   (input URLs) every hop must be https: a redirect to http:// is refused
 *   before it is followed, so nothing travels in plain text.
 * - IPv6 outside 2000::/3 — where all global unicast space lies — is refused
 *   (IPv4-compatible `::a.b.c.d` and the like).
 * - An address this server holds itself (any network interface's, public ones
 *   included) is refused like loopback: the kernel delivers it locally, to
 *   services bound to 0.0.0.0 that only a firewall keeps from the outside
 *   world.
 * - `readCapped` counts bytes while streaming and stops at the cap.
 *
 * `allowPrivate` (OUTBOUND_ALLOW_PRIVATE, for local fakes and tests) admits
 * loopback, private, unique-local and CGNAT addresses — never link-local
 * (metadata), multicast or unspecified ones.
 */

import { lookup as dnsLookup } from "node:dns/promises";
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";
import { readStreamCapped } from "./body.server";

export type Resolver = (hostname: string) => Promise<string[]>;

export interface OutboundOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  signal?: AbortSignal;
  /** Redirects followed, each hop checked. 0: the 3xx answer is returned unfollowed. Default 3. */
  maxRedirects?: number;
  /** Every hop must be https (the first URL and every redirect); a plain-http one is refused unfetched. */
  httpsOnly?: boolean;
  /** OUTBOUND_ALLOW_PRIVATE: admit loopback/private/CGNAT targets (tests, fakes on 127.0.0.1). */
  allowPrivate?: boolean;
  /** DNS (tests pass a fake). */
  resolve?: Resolver;
  /** The addresses this server holds (tests pass a fake); default: every network interface's, read at each check. */
  localAddresses?: () => Iterable<string>;
  /** How long resolving a host may take (default DNS_TIMEOUT_MS); `signal` ends the wait too. */
  dnsTimeoutMs?: number;
}

/**
 * A host whose DNS server never answers (an attacker's own domain) must not hold a webhook sender or a request past
 * its timeout: the system resolver alone waits 10–30 s.
 */
export const DNS_TIMEOUT_MS = 5_000;

/**
 * The request was refused before connecting (or a hop / the body broke a rule). Not retryable.
 * `message` is for the operator's log; `publicMessage` is what the person who chose the URL may read:
 * it never tells what the server's resolver answered (an internal name's address, or whether it exists).
 */
export class OutboundRefused extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly publicMessage: string = message,
  ) {
    super(message);
    this.name = "OutboundRefused";
  }
}

/** The requester's view of a refused destination: the host and the rule, never an address or a resolver error. */
const notPublic = (host: string, literal: boolean) =>
  literal ? `${host} is not a public internet address` : `${host} does not resolve to a public internet address`;

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes`);
    this.name = "BodyTooLarge";
  }
}

/** Ranges that `allowPrivate` admits; everything else but public unicast is always refused. */
const PRIVATE_OK = new Set(["loopback", "private", "uniqueLocal", "carrierGradeNat"]);

/**
 * An IPv6 address in the URL standard's spelling (`::127.0.0.1` → `::7f00:1`): ipaddr.js reads any dotted tail
 * as IPv4-mapped, so the IPv4-compatible `::a.b.c.d` would be judged as the address it embeds.
 */
function canonical(ip: string): string {
  if (!ip.includes(":")) return ip;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
}

/** All global unicast IPv6 space is allocated from 2000::/3; ipaddr.js calls the rest of ::/0 "unicast" too. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/** Every address of this machine's network interfaces, normalised (IPv4-mapped IPv6 as IPv4). */
export function serverAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      const bareAddress = a.address.split("%")[0]!; // fe80::1%eth0
      if (ipaddr.isValid(bareAddress)) out.push(ipaddr.process(canonical(bareAddress)).toString());
    }
  }
  return out;
}

/**
 * Why an address may not be contacted, or null when it may. `local` lists the
 * addresses this server holds: connecting to one of them is connecting to
 * itself, whatever its range says.
 */
export function addressRefusal(ip: string, allowPrivate = false, local: Iterable<string> = []): string | null {
  if (!ipaddr.isValid(ip)) return `"${ip}" is not an IP address`;
  // ::ffff:127.0.0.1 is 127.0.0.1: judge the IPv4 address it carries.
  const addr = ipaddr.process(canonical(ip));
  const range = addr.range();
  if (range === "unicast") {
    if (addr.kind() === "ipv6" && !addr.match(GLOBAL_UNICAST_V6))
      return `${addr.toString()} is outside global unicast space (2000::/3)`;
    if (!allowPrivate) {
      const text = addr.toString();
      for (const own of local) if (own === text) return `${text} is an address of this server`;
    }
    return null;
  }
  if (allowPrivate && PRIVATE_OK.has(range)) return null;
  return `${addr.toString()} is a ${range} address`;
}

const systemResolve: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** The resolver's answer, or a rejection once `ms` pass or `signal` aborts (the lookup itself cannot be stopped). */
async function resolveWithin(resolve: Resolver, host: string, ms: number, signal?: AbortSignal): Promise<string[]> {
  signal?.throwIfAborted();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
        onAbort = () => reject(signal?.reason ?? new Error("aborted"));
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/** The hostname without IPv6 brackets. */
const bare = (hostname: string) => (hostname.startsWith("[") ? hostname.slice(1, -1) : hostname);

/** Resolves a URL's host and returns the one checked address to connect to. */
export async function checkedAddress(
  url: URL,
  opts: Pick<OutboundOptions, "allowPrivate" | "resolve" | "localAddresses" | "dnsTimeoutMs" | "signal"> = {},
): Promise<string> {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new OutboundRefused(`scheme ${url.protocol} is not allowed`, url.href);
  if (url.username || url.password) throw new OutboundRefused("URLs with credentials are not allowed", url.href);
  const host = bare(url.hostname);
  const literal = ipaddr.isValid(host);
  let addresses: string[];
  if (literal) addresses = [host];
  else {
    try {
      addresses = await resolveWithin(
        opts.resolve ?? systemResolve,
        host,
        opts.dnsTimeoutMs ?? DNS_TIMEOUT_MS,
        opts.signal,
      );
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      throw new OutboundRefused(
        `${host} could not be resolved: ${(err as Error)?.message ?? String(err)}`,
        url.href,
        notPublic(host, literal),
      );
    }
  }
  if (addresses.length === 0) throw new OutboundRefused(`${host} has no address`, url.href, notPublic(host, literal));
  // Every answer must pass: a name with one public and one private address is refused.
  const local = opts.allowPrivate ? [] : [...(opts.localAddresses ?? serverAddresses)()];
  for (const a of addresses) {
    const why = addressRefusal(a, opts.allowPrivate, local);
    if (why)
      throw new OutboundRefused(`${host} resolves to a forbidden address: ${why}`, url.href, notPublic(host, literal));
  }
  return addresses[0]!;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers not carried to another origin on a redirect. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/**
 * fetch() with the rules above. Returns the final response (its body not yet
 * read: use `readCapped`). Network errors are thrown as fetch throws them.
 */
export async function safeFetch(input: string, opts: OutboundOptions = {}): Promise<Response> {
  const maxRedirects = opts.maxRedirects ?? 3;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new OutboundRefused("not a URL", input);
  }
  let method = opts.method ?? "GET";
  let body = opts.body;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
  for (let hop = 0; ; hop++) {
    if (opts.httpsOnly && url.protocol !== "https:")
      throw new OutboundRefused(
        hop === 0 ? "only https:// URLs are allowed" : `a redirect to ${url.protocol}// is not allowed (https only)`,
        url.href,
      );
    const ip = await checkedAddress(url, opts);
    const target = new URL(url.href);
    target.hostname = ip.includes(":") ? `[${ip}]` : ip;
    const res = await fetch(target.href, {
      method,
      headers: { ...headers, host: url.host },
      body,
      signal: opts.signal,
      redirect: "manual",
      // Verify the certificate against the real name (and send it as SNI), not the IP we connect to.
      ...(url.protocol === "https:" ? { tls: { serverName: bare(url.hostname) } } : {}),
    });
    if (!REDIRECTS.has(res.status) || maxRedirects === 0) return res;
    const location = res.headers.get("location");
    await res.body?.cancel().catch(() => {});
    if (!location) throw new OutboundRefused(`HTTP ${res.status} without a Location`, url.href);
    if (hop + 1 > maxRedirects) throw new OutboundRefused(`more than ${maxRedirects} redirects`, url.href);
    const next = new URL(location, url);
    if (next.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      delete headers["content-type"];
    }
    url = next;
  }
}

/** The body, read chunk by chunk; stops and cancels the stream once it passes `maxBytes`. */
export async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new BodyTooLarge(maxBytes);
  }
  if (!res.body) return new Uint8Array(0);
  const bytes = await readStreamCapped(res.body, maxBytes);
  if (!bytes) throw new BodyTooLarge(maxBytes);
  return bytes;
}
