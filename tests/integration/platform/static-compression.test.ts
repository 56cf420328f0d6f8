/**
 * Static files of the client build go out pre-compressed (brotli or gzip, written by `bun run build`) to clients
 * that accept it, as they are to those that do not, and hashed assets are cached as immutable.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

const it = serverForFile();

/** The largest script the studio page loads (the one a phone waits for). */
async function largestStudioScript(): Promise<string> {
  const { cookie } = await it.api.signUp(`static-${crypto.randomUUID()}@example.com`);
  const html = await (await fetch(`${it.server.url}/studio`, { headers: { cookie } })).text();
  const scripts = [...html.matchAll(/\/assets\/[\w.-]+\.js/g)].map((m) => m[0]);
  expect(scripts.length).toBeGreaterThan(2);
  let best = { path: "", size: 0 };
  for (const path of new Set(scripts)) {
    const r = await fetch(it.server.url + path, { headers: { "accept-encoding": "identity" } });
    const size = (await r.arrayBuffer()).byteLength;
    if (size > best.size) best = { path, size };
  }
  return best.path;
}

const raw = (path: string, acceptEncoding?: string) =>
  fetch(it.server.url + path, {
    headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding },
    decompress: false,
  } as RequestInit);

test("brotli when accepted, gzip when only gzip is, the same bytes once decoded; immutable caching", async () => {
  const path = await largestStudioScript();
  const plain = Buffer.from(await (await raw(path, "identity")).arrayBuffer());

  const br = await raw(path, "gzip, deflate, br, zstd");
  expect(br.headers.get("content-encoding")).toBe("br");
  expect(br.headers.get("vary")).toBe("Accept-Encoding");
  expect(br.headers.get("content-type")).toStartWith("text/javascript");
  expect(br.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  const brBytes = Buffer.from(await br.arrayBuffer());
  expect(brBytes.length).toBeLessThan(plain.length / 2);
  expect(brotliDecompressSync(brBytes).equals(plain)).toBe(true);

  const gz = await raw(path, "gzip");
  expect(gz.headers.get("content-encoding")).toBe("gzip");
  expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(plain)).toBe(true);

  // Refused with q=0, or not offered: the next coding, or the file as it is.
  expect((await raw(path, "br;q=0, gzip")).headers.get("content-encoding")).toBe("gzip");
  const identity = await raw(path, "identity");
  expect(identity.headers.get("content-encoding")).toBeNull();
  expect(identity.headers.get("vary")).toBe("Accept-Encoding");
  expect(identity.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
});

test("HEAD answers the coded length without a body; files outside /assets/ keep a short cache", async () => {
  const path = await largestStudioScript();
  const get = await raw(path, "br");
  const size = (await get.arrayBuffer()).byteLength;
  const head = await fetch(it.server.url + path, { method: "HEAD", headers: { "accept-encoding": "br" } });
  expect(head.headers.get("content-encoding")).toBe("br");
  expect(Number(head.headers.get("content-length"))).toBe(size);
  expect((await raw("/favicon.svg", "br")).headers.get("cache-control")).toBe("public, max-age=3600");
});
