/**
 * The safe outbound fetch (app/lib/outbound.server.ts): which addresses are
 * refused, redirects checked hop by hop, bodies counted while streaming — over
 * real HTTP to local servers (allowed only with allowPrivate, as the fakes are).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { addressRefusal, BodyTooLarge, OutboundRefused, readCapped, safeFetch } from "~/lib/outbound.server";
import { downloadAsset } from "~/providers/http.server";
import { ProviderError } from "~/providers/types";

describe("addressRefusal", () => {
  const refused = [
    "127.0.0.1",
    "127.8.9.10",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1", // CGNAT
    "100.100.100.200", // Alibaba metadata (CGNAT)
    "169.254.169.254", // cloud metadata (link-local)
    "169.254.0.1",
    "224.0.0.1",
    "239.255.255.250",
    "0.0.0.0",
    "255.255.255.255",
    "240.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254", // AWS metadata over IPv6 (unique-local)
    "ff02::1",
    "::ffff:127.0.0.1", // IPv4-mapped loopback
    "::ffff:7f00:1", // the same, hex spelling
    "::ffff:169.254.169.254",
    "::ffff:10.0.0.1",
    "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
    "2002:a9fe:a9fe::1", // 6to4 of 169.254.169.254
  ];
  for (const ip of refused) test(`refuses ${ip}`, () => expect(addressRefusal(ip)).not.toBeNull());

  for (const ip of [
    "93.184.215.14",
    "8.8.8.8",
    "2606:4700::6810:85e5",
    "::ffff:8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
  ]) {
    test(`allows public ${ip}`, () => expect(addressRefusal(ip)).toBeNull());
  }

  test("allowPrivate admits loopback, private, unique-local and CGNAT — never link-local, multicast or unspecified", () => {
    for (const ip of ["127.0.0.1", "::1", "10.0.0.1", "192.168.0.1", "fd12::1", "100.64.1.1", "::ffff:127.0.0.1"]) {
      expect(addressRefusal(ip, true)).toBeNull();
    }
    for (const ip of ["169.254.169.254", "fe80::1", "224.0.0.1", "0.0.0.0", "::", "::ffff:169.254.169.254"]) {
      expect(addressRefusal(ip, true)).not.toBeNull();
    }
  });
});

/** A local server that logs what reached it. */
function server(handler: (req: Request, url: URL) => Response | Promise<Response>) {
  const hits: string[] = [];
  const s = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const url = new URL(req.url);
      hits.push(
        `${req.method} ${url.pathname} host=${req.headers.get("host")} auth=${req.headers.get("authorization") ?? "-"}`,
      );
      return handler(req, url);
    },
  });
  return { origin: `http://127.0.0.1:${s.port}`, port: s.port!, hits, stop: () => s.stop(true) };
}

/** Streams `total` bytes lazily (only as fast as the client reads) and counts what it handed out. */
function endless(total: number) {
  const chunk = new Uint8Array(1024 * 1024).fill(7);
  const sent = { bytes: 0 };
  const body = () =>
    new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent.bytes >= total) return c.close();
        sent.bytes += chunk.byteLength;
        c.enqueue(chunk);
      },
    });
  return { sent, body };
}

const big = endless(700 * 1024 * 1024);
const up = server((_req, url) => {
  if (url.pathname === "/ok.png")
    return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), {
      headers: { "content-type": "image/png" },
    });
  if (url.pathname === "/to-metadata") return Response.redirect("http://169.254.169.254/latest/meta-data/", 302);
  if (url.pathname === "/to-mapped") return Response.redirect("http://[::ffff:a9fe:a9fe]/", 302);
  if (url.pathname === "/to-ok") return new Response(null, { status: 302, headers: { location: "/ok.png" } });
  if (url.pathname === "/loop") return new Response(null, { status: 302, headers: { location: "/loop" } });
  if (url.pathname === "/huge") return new Response(big.body(), { headers: { "content-type": "video/mp4" } });
  return new Response("nope", { status: 404 });
});
afterAll(() => up.stop());
const signal = () => AbortSignal.timeout(20_000);

describe("safeFetch", () => {
  test("refuses a loopback URL unless allowPrivate — and never connects", async () => {
    up.hits.length = 0;
    await expect(safeFetch(`${up.origin}/ok.png`)).rejects.toBeInstanceOf(OutboundRefused);
    await expect(safeFetch(`http://localhost:${up.port}/ok.png`)).rejects.toThrow(/forbidden address/);
    expect(up.hits).toEqual([]);
    const res = await safeFetch(`${up.origin}/ok.png`, { allowPrivate: true });
    expect(res.status).toBe(200);
    expect(up.hits).toHaveLength(1);
  });

  test("a host name is resolved here, every address checked, and the connection pinned to the checked one", async () => {
    up.hits.length = 0;
    // A name with one private answer among public ones is refused.
    await expect(safeFetch("http://mixed.test/", { resolve: async () => ["8.8.8.8", "10.0.0.1"] })).rejects.toThrow(
      /10\.0\.0\.1 is a private address/,
    );
    // Rebinding: the name resolves (once, here) to 127.0.0.1, and that is where the request goes, with the real Host.
    let lookups = 0;
    const res = await safeFetch(`http://assets.example.test:${up.port}/ok.png`, {
      allowPrivate: true,
      resolve: async () => (lookups++, ["127.0.0.1"]),
    });
    expect(res.status).toBe(200);
    expect(lookups).toBe(1);
    expect(up.hits).toEqual([`GET /ok.png host=assets.example.test:${up.port} auth=-`]);
  });

  test("redirects are followed by hand and each hop is checked: metadata refused even with allowPrivate", async () => {
    await expect(safeFetch(`${up.origin}/to-metadata`, { allowPrivate: true })).rejects.toThrow(
      /169\.254\.169\.254 is a linkLocal address/,
    );
    await expect(safeFetch(`${up.origin}/to-mapped`, { allowPrivate: true })).rejects.toThrow(/linkLocal/);
    const ok = await safeFetch(`${up.origin}/to-ok`, { allowPrivate: true });
    expect(ok.status).toBe(200);
    await expect(safeFetch(`${up.origin}/loop`, { allowPrivate: true })).rejects.toThrow(/more than 3 redirects/);
  });

  test("httpsOnly: an http:// URL is refused before anything is sent to it", async () => {
    up.hits.length = 0;
    await expect(safeFetch(`${up.origin}/ok.png`, { allowPrivate: true, httpsOnly: true })).rejects.toThrow(
      "only https:// URLs are allowed",
    );
    expect(up.hits).toEqual([]);
    // Without it the same URL is fetched (the redirect case runs against a trusted https host in
    // tests/integration/files/input-urls.happy.test.ts).
    expect((await safeFetch(`${up.origin}/ok.png`, { allowPrivate: true })).status).toBe(200);
    expect(up.hits).toHaveLength(1);
  });

  test("maxRedirects 0 (webhooks) returns the 3xx without following it", async () => {
    up.hits.length = 0;
    const res = await safeFetch(`${up.origin}/to-ok`, {
      allowPrivate: true,
      maxRedirects: 0,
      method: "POST",
      body: "{}",
    });
    expect(res.status).toBe(302);
    expect(up.hits).toEqual([`POST /to-ok host=127.0.0.1:${up.port} auth=-`]);
  });

  test("credentials are not carried to another origin", async () => {
    const other = server(() => new Response("ok"));
    const hop = server(() => Response.redirect(`${other.origin}/x`, 307));
    try {
      await safeFetch(`${hop.origin}/`, { allowPrivate: true, headers: { Authorization: "Bearer secret" } });
      expect(hop.hits[0]).toContain("auth=Bearer secret");
      expect(other.hits[0]).toContain("auth=-");
    } finally {
      other.stop();
      hop.stop();
    }
  });

  test("other schemes and credentials in URLs are refused", async () => {
    await expect(safeFetch("file:///etc/passwd")).rejects.toThrow(/scheme/);
    await expect(safeFetch("http://user:pw@8.8.8.8/")).rejects.toThrow(/credentials/);
  });
});

describe("readCapped", () => {
  test("stops a 700 MiB stream at the cap: only a few MiB are ever pulled", async () => {
    big.sent.bytes = 0;
    const res = await safeFetch(`${up.origin}/huge`, { allowPrivate: true });
    await expect(readCapped(res, 8 * 1024 * 1024)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(big.sent.bytes).toBeLessThan(64 * 1024 * 1024);
  });

  test("a declared Content-Length over the cap is refused before reading", async () => {
    const res = new Response(new ReadableStream({ pull: (c) => c.close() }), {
      headers: { "content-length": String(700 * 1024 * 1024) },
    });
    await expect(readCapped(res, 1024)).rejects.toBeInstanceOf(BodyTooLarge);
  });
});

describe("downloadAsset uses it", () => {
  test("a result URL on 127.0.0.1 is refused (not retryable) unless allowed", async () => {
    up.hits.length = 0;
    const err = await downloadAsset({ kind: "url", url: `${up.origin}/ok.png` }, signal()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(false);
    expect(err.opts.operatorHint).toContain("forbidden address");
    expect(up.hits).toEqual([]);
    const ok = await downloadAsset({ kind: "url", url: `${up.origin}/ok.png` }, signal(), { allowPrivate: true });
    expect(ok.contentType).toBe("image/png");
  });

  test("a redirect to the metadata address fails the download", async () => {
    const err = await downloadAsset({ kind: "url", url: `${up.origin}/to-metadata` }, signal(), {
      allowPrivate: true,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.opts.operatorHint).toContain("169.254.169.254");
  });

  test("a 700 MiB stream is cut at the cap while streaming", async () => {
    big.sent.bytes = 0;
    const err = await downloadAsset({ kind: "url", url: `${up.origin}/huge` }, signal(), {
      allowPrivate: true,
      maxBytes: 16 * 1024 * 1024,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toBe("the result file is too large");
    expect(big.sent.bytes).toBeLessThan(80 * 1024 * 1024);
  });
});
