/**
 * Dynamic responses (pages, React Router's `.data`, the JSON API) are compressed per request by Accept-Encoding:
 * brotli, else gzip, else as they are, always with `Vary: Accept-Encoding`; tiny bodies, HEAD and the status stream
 * (which must stay unbuffered) are not (app/server/compression.server.ts, docs/decisions/133-dynamic-response-compression.md).
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

const it = serverForFile({ env: { SIMULATOR_DELAY_MS: "1500", SIGNUP_CREDITS: "20" } });

const raw = (path: string, acceptEncoding: string, init: RequestInit = {}) =>
  fetch(it.server.url + path, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), "accept-encoding": acceptEncoding },
    decompress: false,
  } as RequestInit);

const bytes = async (r: Response) => Buffer.from(await r.arrayBuffer());
/** The page without what differs per request (the request id, nonces). */
const shape = (html: string) => html.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f-]{19,}|nonce="[^"]*"/gi, "").length;

test("the studio page: brotli when accepted, gzip when only gzip is, as it is otherwise; Vary on each", async () => {
  const { cookie } = await it.api.signUp(`compress-${crypto.randomUUID()}@example.com`);
  const headers = { cookie };
  const identity = await raw("/studio", "identity", { headers });
  expect(identity.status).toBe(200);
  expect(identity.headers.get("content-encoding")).toBeNull();
  expect(identity.headers.get("vary")).toContain("Accept-Encoding");
  const html = (await bytes(identity)).toString();
  expect(html).toStartWith("<!DOCTYPE html>");
  expect(html.length).toBeGreaterThan(20_000);

  const br = await raw("/studio", "gzip, deflate, br, zstd", { headers });
  expect(br.headers.get("content-encoding")).toBe("br");
  expect(br.headers.get("vary")).toContain("Accept-Encoding");
  expect(br.headers.get("content-type")).toStartWith("text/html");
  expect(br.headers.get("content-length")).toBeNull();
  const brBytes = await bytes(br);
  const brHtml = brotliDecompressSync(brBytes).toString();
  expect(brHtml).toStartWith("<!DOCTYPE html>");
  expect(brHtml).toEndWith("</html>");
  expect(shape(brHtml)).toBeGreaterThan(shape(html) * 0.95);
  expect(shape(brHtml)).toBeLessThan(shape(html) * 1.05);
  expect(brBytes.length).toBeLessThan(html.length / 3);

  const gz = await raw("/studio", "gzip", { headers });
  expect(gz.headers.get("content-encoding")).toBe("gzip");
  expect(gunzipSync(await bytes(gz)).toString()).toStartWith("<!DOCTYPE html>");

  // Refused with q=0: the next coding, or none.
  expect((await raw("/studio", "br;q=0, gzip", { headers })).headers.get("content-encoding")).toBe("gzip");
  expect((await raw("/studio", "br;q=0, gzip;q=0", { headers })).headers.get("content-encoding")).toBeNull();
  // HEAD carries no body to code.
  const head = await raw("/studio", "br", { method: "HEAD", headers });
  expect(head.headers.get("content-encoding")).toBeNull();

  // The page's data for client navigations (turbo-stream).
  const data = await raw("/studio.data", "br", { headers });
  expect(data.status).toBe(200);
  expect(data.headers.get("content-encoding")).toBe("br");
  expect(brotliDecompressSync(await bytes(data)).toString()).toStartWith("[");
});

test("the JSON API: a large answer is compressed, a tiny one is not", async () => {
  const spec = await raw("/api/openapi.json", "br");
  expect(spec.headers.get("content-encoding")).toBe("br");
  expect(spec.headers.get("vary")).toContain("Accept-Encoding");
  expect(JSON.parse(brotliDecompressSync(await bytes(spec)).toString()).openapi).toStartWith("3.1");

  const { cookie } = await it.api.signUp(`compress-${crypto.randomUUID()}@example.com`);
  const credits = await raw("/api/get-user-credits", "br, gzip", {
    method: "POST",
    headers: { cookie, "content-type": "application/json", origin: it.server.url },
    body: "{}",
  });
  expect(credits.headers.get("content-encoding")).toBeNull();
  expect(credits.headers.get("vary")).toContain("Accept-Encoding");
  expect(JSON.parse((await bytes(credits)).toString()).code).toBe(0);
});

test("the status stream is never compressed and delivers its first event before the task finishes", async () => {
  const { cookie } = await it.api.signUp(`compress-${crypto.randomUUID()}@example.com`);
  const gen = await it.api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a lighthouse in fog" },
    { cookie },
  );
  expect(gen.body.code).toBe(0);
  const stream = await raw(`/api/generator/stream?gen_id=${gen.body.data.gen_id}`, "br, gzip", {
    headers: { cookie },
  });
  expect(stream.status).toBe(200);
  expect(stream.headers.get("content-type")).toStartWith("text/event-stream");
  expect(stream.headers.get("content-encoding")).toBeNull();
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const statuses = () => [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!).status as string);
  // The first event arrives on its own, while the 1.5 s simulated task is still running: nothing holds it back.
  while (statuses().length === 0) {
    const { done, value } = await reader.read();
    expect(done).toBe(false);
    text += decoder.decode(value, { stream: true });
  }
  expect(statuses()[0]).not.toBe("completed");
  // Then the final one; the stream closes after it.
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  expect(statuses().at(-1)).toBe("completed");
});
