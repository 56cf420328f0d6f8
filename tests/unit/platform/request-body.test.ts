/**
 * The server's bound on request bodies (app/server/request-body.server.ts) and the capped stream reader under it
 * (app/lib/body.server.ts): declared and chunked bodies at, just under and just over the bound; Bun's own ceiling
 * above it; the transport's refusal read as "too large", any other read error passed on.
 */
import { describe, expect, test } from "bun:test";
import { readBodyCapped, readStreamCapped } from "~/lib/body.server";
import { AppError } from "~/lib/errors";
import { bodyBound, boundRequestBody, transportLimit } from "~/server/request-body.server";

const chunked = (size: number, step = 1000) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let at = 0; at < size; at += step) c.enqueue(new Uint8Array(Math.min(step, size - at)).fill(7));
      c.close();
    },
  });
const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1/api/files", { method: "POST", body, headers, duplex: "half" } as RequestInit);

describe("bodyBound and transportLimit", () => {
  test("two files and framing, at least 8 MiB; Bun's ceiling twice that", () => {
    expect(bodyBound(1000)).toBe(8 * 1024 * 1024);
    expect(bodyBound(20_971_520)).toBe(2 * 20_971_520 + 65_536);
    expect(bodyBound(4 * 1024 * 1024 - 32 * 1024)).toBe(8 * 1024 * 1024);
    expect(bodyBound(4 * 1024 * 1024 - 32 * 1024 + 1)).toBe(8 * 1024 * 1024 + 2);
    expect(transportLimit(20_971_520)).toBe(2 * bodyBound(20_971_520));
  });
});

describe("boundRequestBody", () => {
  test("a declared length: at the bound handed on untouched, one over refused 413 without reading", async () => {
    const at = post(new Uint8Array(100), { "content-length": "100" });
    expect(await boundRequestBody(at, 100, 50)).toBe(at);
    const over = post(new Uint8Array(101), { "content-length": "101" });
    const refused = await boundRequestBody(over, 100, 50);
    expect(refused).toBeInstanceOf(AppError);
    expect([(refused as AppError).status, (refused as AppError).message]).toEqual([
      413,
      "invalid file: larger than 50 bytes",
    ]);
    expect(over.bodyUsed).toBe(false);
  });

  test("chunked: at the bound read into a request that declares its length, one over refused", async () => {
    const at = (await boundRequestBody(post(chunked(5000), { "transfer-encoding": "chunked" }), 5000, 10)) as Request;
    expect(at).toBeInstanceOf(Request);
    expect(at.headers.get("content-length")).toBe("5000");
    expect(at.headers.has("transfer-encoding")).toBe(false);
    expect(at.method).toBe("POST");
    const bytes = new Uint8Array(await at.arrayBuffer());
    expect([bytes.byteLength, bytes[4999]]).toEqual([5000, 7]);
    const under = (await boundRequestBody(
      post(chunked(4999), { "transfer-encoding": "chunked" }),
      5000,
      10,
    )) as Request;
    expect(under.headers.get("content-length")).toBe("4999");
    const over = await boundRequestBody(post(chunked(5001), { "transfer-encoding": "chunked" }), 5000, 10);
    expect((over as AppError).code).toBe("FILE_TOO_LARGE");
  });

  test("GET and HEAD are never read, even declaring more than the bound", async () => {
    for (const method of ["GET", "HEAD"]) {
      const r = new Request("http://127.0.0.1/", { method, headers: { "content-length": "999" } });
      expect(await boundRequestBody(r, 10, 1)).toBe(r);
    }
    const refused = await boundRequestBody(post(chunked(11), { "transfer-encoding": "chunked" }), 10, 7);
    expect((refused as AppError).message).toBe("invalid file: larger than 7 bytes");
  });

  test("a POST with a body but no transfer-encoding header is left to Bun", async () => {
    const r = post(chunked(50));
    r.headers.delete("transfer-encoding");
    r.headers.delete("content-length");
    expect(await boundRequestBody(r, 10, 1)).toBe(r);
  });

  test("GET, HEAD and a POST without a body go on as they are", async () => {
    for (const method of ["GET", "HEAD"]) {
      const r = new Request("http://127.0.0.1/", { method, headers: { "transfer-encoding": "chunked" } });
      expect(await boundRequestBody(r, 0, 1)).toBe(r);
    }
    const empty = post(null);
    expect(await boundRequestBody(empty, 0, 1)).toBe(empty);
  });
});

describe("readBodyCapped", () => {
  test("declared: at the cap its bytes, one over null unread; chunked: counted; none: empty", async () => {
    const declared = (n: number) => post(new Uint8Array(n).fill(3), { "content-length": String(n) });
    expect((await readBodyCapped(declared(100), 100))!.byteLength).toBe(100);
    const over = declared(101);
    expect(await readBodyCapped(over, 100)).toBeNull();
    expect(over.bodyUsed).toBe(false);
    expect((await readBodyCapped(declared(1), 1))![0]).toBe(3);
    expect((await readBodyCapped(post(chunked(2500), { "transfer-encoding": "chunked" }), 2500))!.byteLength).toBe(
      2500,
    );
    expect(await readBodyCapped(post(chunked(2501), { "transfer-encoding": "chunked" }), 2500)).toBeNull();
    const one = await readBodyCapped(post(chunked(700), { "transfer-encoding": "chunked" }), 2500);
    expect([one!.byteLength, one![699]]).toEqual([700, 7]);
    expect((await readBodyCapped(post(null), 10))!.byteLength).toBe(0);
  });
});

describe("readStreamCapped", () => {
  test("at the cap the bytes, one over null and the stream cancelled", async () => {
    expect((await readStreamCapped(chunked(3000), 3000))!.byteLength).toBe(3000);
    let cancelled = false;
    const s = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new Uint8Array(1000));
      },
      cancel() {
        cancelled = true;
      },
    });
    expect(await readStreamCapped(s, 2999)).toBeNull();
    expect(cancelled).toBe(true);
  });

  test("Bun's body ceiling is 'too large'; any other read error is thrown", async () => {
    const failing = (message: string) =>
      new ReadableStream<Uint8Array>({
        pull(c) {
          c.error(new Error(message));
        },
      });
    expect(await readStreamCapped(failing("Request body exceeded maxRequestBodySize"), 10)).toBeNull();
    await expect(readStreamCapped(failing("socket closed"), 10)).rejects.toThrow("socket closed");
  });
});
