/**
 * Input files over real HTTP (docs/api.md "Files"): upload, list, delete and open, by key and by session; every
 * refusal is code 1 with a 4xx and stores nothing; another user's file is "file not found" everywhere; signed links
 * expire and cannot be altered. SQLite, and PostgreSQL on the ATELIER_TEST_PG run.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { decodeJpg, decodeJpgExif } from "image-in-browser";
import { signedFileUrl } from "~/domain/files/links.server";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/fixtures";
import {
  concat,
  EXIF_MARK,
  jpeg,
  jpegSegment,
  jpegSegments,
  PHONE_MAKE,
  PHONE_MODEL,
  phonePhoto,
  png,
  pngBomb,
  pngChunk,
  pngChunkTypes,
  pngSized,
  webp,
  webpChunk,
  webpChunkTypes,
  webpExtended,
} from "../../support/images";
import { TEST_AUTH_SECRET } from "../../support/server";

const MAX = 300_000;
const it = serverForFile({
  env: {
    JOBS: "off",
    FILE_MAX_BYTES: String(MAX),
    FILE_QUOTA_MB: "1",
    FILE_UPLOAD_LIMIT: "12",
    BETTER_AUTH_SECRET: TEST_AUTH_SECRET,
    // The access log, for the chunked uploads' lines.
    LOG_LEVEL: "info",
  },
});

interface Who {
  cookie?: string;
  apiKey?: string;
}

async function user(): Promise<Who & { key: Who; session: Who }> {
  const { cookie } = await it.api.signUp(uniqueEmail("files"));
  const apiKey = (await it.api.post("/api/keys/create", { name: "files" }, { cookie })).body.data.key as string;
  return { cookie, apiKey, key: { apiKey }, session: { cookie } };
}

async function upload(who: Who, bytes: Uint8Array, o: { name?: string; type?: string; origin?: string | null } = {}) {
  const form = new FormData();
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: o.type ?? "image/png" }), o.name ?? "a.png");
  const headers: Record<string, string> = {};
  if (who.apiKey) headers["x-api-key"] = who.apiKey;
  else if (who.cookie) headers.cookie = who.cookie;
  const origin = o.origin === undefined ? it.server.url : o.origin;
  if (who.cookie && !who.apiKey && origin) headers.origin = origin;
  const res = await fetch(`${it.server.url}/api/files`, { method: "POST", headers, body: form });
  return { status: res.status, body: (await res.json()) as { code: number; message: string; data: any } };
}

const storedFiles = () => {
  try {
    return readdirSync(join(it.server.dataDir, "files", "files")).length;
  } catch {
    return 0;
  }
};
const open = (url: string, who: Who = {}) =>
  fetch(url, {
    headers: { ...(who.apiKey ? { "x-api-key": who.apiKey } : {}), ...(who.cookie ? { cookie: who.cookie } : {}) },
  });

describe("uploads", () => {
  test("PNG, JPEG and WebP by key and by session: stored, listed, opened by the owner, deleted", async () => {
    const u = await user();
    const a = await upload(u.key, png(30, 20));
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ code: 0, message: "file stored" });
    expect(a.body.data).toMatchObject({ content_type: "image/png", width: 30, height: 20 });
    expect(a.body.data.file_id).toMatch(/^file_[A-Za-z0-9_-]{22}$/);
    expect(a.body.data.url).toBe(`${it.server.url}/files/${a.body.data.file_id}`);
    expect(Date.parse(a.body.data.expires_at) - Date.parse(a.body.data.created_at)).toBe(7 * 86_400_000);
    const b = await upload(u.session, jpeg(64, 48), { name: "b.jpg", type: "image/jpeg" });
    expect(b.body.data).toMatchObject({ content_type: "image/jpeg", width: 64, height: 48 });
    // The declared type and name are ignored: the bytes say WebP.
    const c = await upload(u.key, webp(100, 50), { name: "c.png", type: "image/png" });
    expect(c.body.data).toMatchObject({ content_type: "image/webp", width: 100, height: 50 });

    const list = await it.api.post("/api/files/list", { page: 1, page_size: 2 }, u.key);
    expect(list.body.data.total).toBe(3);
    expect(list.body.data.files.map((f: { file_id: string }) => f.file_id)).toEqual([
      c.body.data.file_id,
      b.body.data.file_id,
    ]);
    expect((await it.api.post("/api/files/list", { page: 2, page_size: 2 }, u.session)).body.data.files).toHaveLength(
      1,
    );

    for (const who of [u.key, u.session]) {
      const res = await open(a.body.data.url, who);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(new Uint8Array(await res.arrayBuffer()).byteLength).toBe(a.body.data.bytes);
    }
    expect((await open(a.body.data.url)).status).toBe(404);

    const del = await it.api.post("/api/files/delete", { file_id: a.body.data.file_id }, u.session);
    expect(del.body).toMatchObject({ code: 0, data: { file_id: a.body.data.file_id, deleted: true } });
    expect((await open(a.body.data.url, u.key)).status).toBe(404);
    expect((await it.api.post("/api/files/delete", { file_id: a.body.data.file_id }, u.key)).status).toBe(404);
    expect((await it.api.post("/api/files/list", {}, u.key)).body.data.total).toBe(2);
  });

  test("JPEG location and camera metadata is removed before storing", async () => {
    const u = await user();
    const up = await upload(u.key, jpeg(64, 48, { exif: true }), { type: "image/jpeg" });
    expect(up.body.code).toBe(0);
    const stored = Buffer.from(await (await open(up.body.data.url, u.key)).arrayBuffer());
    expect(stored.includes(EXIF_MARK)).toBe(false);
    expect(stored.includes(Buffer.from(jpeg(64, 48, { exif: true })).subarray(0, 2))).toBe(true);
  });

  test("a phone photo (Exif Orientation 6, GPS) keeps its orientation and loses the GPS and camera; sides as shown", async () => {
    const u = await user();
    const photo = phonePhoto(40, 20); // stored sideways: 40 × 20 sensor pixels, shown 20 wide and 40 high
    expect(decodeJpgExif({ data: photo })?.gpsIfd.gpsLatitudeRef).toBe("N");
    const up = await upload(u.key, photo, { type: "image/jpeg" });
    expect(up.body.data).toMatchObject({ content_type: "image/jpeg", width: 20, height: 40 });
    const stored = new Uint8Array(await (await open(up.body.data.url, u.key)).arrayBuffer());
    const exif = decodeJpgExif({ data: stored });
    expect(exif?.imageIfd.orientation).toBe(6);
    expect(exif?.gpsIfd.size ?? 0).toBe(0);
    expect(exif?.imageIfd.make).toBeUndefined();
    for (const text of [PHONE_MAKE, PHONE_MODEL]) expect(Buffer.from(stored).includes(text)).toBe(false);
    // Shown upright, as the phone meant it: the sensor's left half (red) on top, its right half (blue) below.
    const shown = decodeJpg({ data: stored })!;
    expect([shown.width, shown.height]).toEqual([20, 40]);
    expect(shown.getPixel(10, 5).r).toBeGreaterThan(200);
    expect(shown.getPixel(10, 35).b).toBeGreaterThan(200);
  });

  test("JPEG, PNG and WebP come back with no metadata segment or chunk but orientation and ICC", async () => {
    const u = await user();
    const secret = "creator@example.com GPS 51.5007N -0.1246E";
    const fetchBack = async (bytes: Uint8Array) => {
      const up = await upload(u.key, bytes);
      expect(up.body.code).toBe(0);
      const back = new Uint8Array(await (await open(up.body.data.url, u.key)).arrayBuffer());
      expect(Buffer.from(back).includes(secret)).toBe(false);
      return back;
    };
    const photo = phonePhoto(16, 8);
    const withMetadata = concat(
      photo.subarray(0, 2),
      jpegSegment(0xe1, `http://ns.adobe.com/xap/1.0/\0${secret}`),
      jpegSegment(0xe2, "ICC_PROFILE\0\x01\x01profile"),
      jpegSegment(0xe3, `Exif\0\0${secret}`),
      jpegSegment(0xeb, `JP\0\0\0\0\0\0jumbc2pa${secret}`),
      jpegSegment(0xec, `Ducky${secret}`),
      jpegSegment(0xed, `Photoshop 3.0\0${secret}`),
      jpegSegment(0xfe, secret),
      photo.subarray(2),
    );
    const jpegBack = await fetchBack(withMetadata);
    expect(jpegSegments(jpegBack).filter((s) => /^E|^FE/.test(s))).toEqual(["E2 ICC_PROFILE", "E1 Exif"]);
    expect(decodeJpgExif({ data: jpegBack })?.imageIfd.orientation).toBe(6);

    const pngBack = await fetchBack(
      png(8, 8, {
        chunks: ["iCCP", "tEXt", "zTXt", "iTXt", "eXIf", "exIf", "zxIf", "caBX", "tIME"].map((t) =>
          pngChunk(t, new TextEncoder().encode(t === "iCCP" ? "profile\0\0x" : secret)),
        ),
      }),
    );
    expect(pngChunkTypes(pngBack)).toEqual(["IHDR", "iCCP", "IDAT", "IEND"]);

    const webpBack = await fetchBack(
      webpExtended(8, 8, {
        flags: 0x20 | 0x08 | 0x04,
        chunks: [webpChunk("ICCP", "profile"), webpChunk("EXIF", secret), webpChunk("XMP ", secret)],
      }),
    );
    expect(webpChunkTypes(webpBack)).toEqual({ types: ["VP8X", "ICCP", "VP8L"], flags: 0x20 });
  });

  test("a PNG that is also HTML comes back as image/png, nosniff, sandboxed, without the HTML", async () => {
    const u = await user();
    const html = new TextEncoder().encode("<html><script>alert(document.cookie)</script></html>");
    const poly = concat(png(8, 8, { chunks: [pngChunk("tEXt", concat(new TextEncoder().encode("x\0"), html))] }), html);
    const up = await upload(u.key, poly, { name: "x.html", type: "text/html" });
    expect(up.body.data.content_type).toBe("image/png");
    const res = await open(up.body.data.url, u.key);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(Buffer.from(await res.arrayBuffer()).includes("<script>")).toBe(false);
  });
});

describe("refusals: code 1, HTTP 4xx, nothing stored", () => {
  test("type lies, SVG, HTML, a decompression bomb header, truncated files, oversize, bad multipart", async () => {
    const u = await user();
    const before = storedFiles();
    const bomb = png(100_000, 100_000, { rows: 1 });
    const cases: [string, Uint8Array, number, string][] = [
      ["text named .png", new TextEncoder().encode("hello"), 400, "invalid file: not a PNG, JPEG or WebP image"],
      [
        "SVG",
        new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        400,
        "invalid file: not a PNG, JPEG or WebP image",
      ],
      ["GIF", new TextEncoder().encode("GIF89a\x01\x00\x01\x00"), 400, "invalid file: not a PNG, JPEG or WebP image"],
      ["bomb", bomb, 400, "invalid file: image is 100000×100000: a side may be at most 8192 pixels"],
      ["50 MP", png(8000, 6250, { rows: 1 }), 400, "invalid file: image is 8000×6250: at most 40 megapixels"],
      ["truncated PNG", png(30, 20).slice(0, 70), 400, "invalid file: truncated or malformed image"],
      ["truncated JPEG", jpeg(30, 20).slice(0, 120), 400, "invalid file: truncated or malformed image"],
      ["truncated WebP", webp(30, 20).slice(0, 24), 400, "invalid file: truncated or malformed image"],
      [
        "oversize",
        png(400, 300, { fill: (i) => (i * 7919) % 251, level: 0 }),
        413,
        `invalid file: larger than ${MAX} bytes`,
      ],
    ];
    for (const [name, bytes, status, message] of cases) {
      const t0 = performance.now();
      const r = await upload(u.key, bytes);
      expect({ name, status: r.status, code: r.body.code, message: r.body.message }).toEqual({
        name,
        status,
        code: 1,
        message,
      });
      if (name === "bomb") expect(performance.now() - t0).toBeLessThan(1000);
    }
    // Not multipart, two files, a text field named file.
    const key = { "x-api-key": u.apiKey! };
    const json = await fetch(`${it.server.url}/api/files`, { method: "POST", headers: key, body: "{}" });
    expect(json.status).toBe(400);
    const two = new FormData();
    two.append("file", new Blob([png(2, 2)]));
    two.append("file", new Blob([png(2, 2)]));
    expect((await fetch(`${it.server.url}/api/files`, { method: "POST", headers: key, body: two })).status).toBe(400);
    const textField = new FormData();
    textField.append("file", "not a file");
    expect((await fetch(`${it.server.url}/api/files`, { method: "POST", headers: key, body: textField })).status).toBe(
      400,
    );
    expect(storedFiles()).toBe(before);
    expect((await it.api.post("/api/files/list", {}, u.key)).body.data.total).toBe(0);
  });

  test("a PNG bomb (64×64, data inflating to 256 MiB) is refused at once; its declared size at, under and over", async () => {
    const u = await user();
    const before = storedFiles();
    const bomb = await pngBomb(64, 64, 256 * 1024 * 1024);
    expect(bomb.byteLength).toBeLessThan(MAX);
    const t0 = performance.now();
    const r = await upload(u.key, bomb);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect({ status: r.status, body: r.body }).toEqual({
      status: 400,
      body: {
        code: 1,
        message: "invalid file: PNG image data inflates to more than its 64×64 header declares (a decompression bomb)",
        data: null,
      },
    });
    const declared = 64 * (1 + 64 * 3);
    const over = await upload(u.key, pngSized(64, 64, declared + 1));
    expect([over.status, over.body.code, over.body.message]).toEqual([
      400,
      1,
      "invalid file: PNG image data inflates to more than its 64×64 header declares (a decompression bomb)",
    ]);
    const under = await upload(u.key, pngSized(64, 64, declared - 1));
    expect([under.status, under.body.code, under.body.message]).toEqual([
      400,
      1,
      "invalid file: malformed PNG: image data is shorter than its 64×64 header declares",
    ]);
    expect(storedFiles()).toBe(before);
    const at = await upload(u.key, pngSized(64, 64, declared));
    expect(at.body).toMatchObject({ code: 0, data: { width: 64, height: 64 } });
    const health = await fetch(`${it.server.url}/api/health`);
    expect(health.status).toBe(200);
  });

  test("a body streamed past FILE_MAX_BYTES without a length is cut off: 413", async () => {
    const u = await user();
    const boundary = "b0undary";
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent === 0)
          c.enqueue(
            new TextEncoder().encode(
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`,
            ),
          );
        if (sent > 100 * MAX) return c.close();
        sent += 64 * 1024;
        c.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const res = await fetch(`${it.server.url}/api/files`, {
      method: "POST",
      headers: { "x-api-key": u.apiKey!, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(res.status).toBe(413);
    // The answer came long before the client could send it all: the server stopped reading at the cap.
    expect(sent).toBeLessThan(100 * MAX);
  });

  test("a chunked upload sent as fast as the socket takes it is answered 413 within 5 s and logged, on both upload routes", async () => {
    const u = await user();
    const { hostname, port, host } = new URL(it.server.url);
    for (const path of ["/api/files", "/v1/images/edits"]) {
      const socket = connect(Number(port), hostname);
      let answer = "";
      const answered = new Promise<string>((resolve) => {
        socket.on("data", (d) => {
          answer += d.toString("latin1");
          if (/^HTTP\/1\.1 [2-5]\d\d /m.test(answer.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, ""))) resolve(answer);
        });
        socket.on("close", () => resolve(answer || "closed without an answer"));
        socket.on("error", () => resolve(answer || "reset without an answer"));
      });
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nx-api-key: ${u.apiKey}\r\n` +
          "content-type: multipart/form-data; boundary=b0\r\ntransfer-encoding: chunked\r\n\r\n",
      );
      const chunk = Buffer.concat([Buffer.from("10000\r\n"), Buffer.alloc(0x10000, 0x61), Buffer.from("\r\n")]);
      let stop = false;
      void answered.then(() => (stop = true));
      const t0 = performance.now();
      void (async () => {
        // Up to 40 times Bun's own body ceiling (8 MiB here): far more than any limit.
        for (let sent = 0; !stop && sent < 320 * 1024 * 1024; sent += 0x10000)
          if (!socket.write(chunk)) await new Promise((r) => socket.once("drain", r));
      })().catch(() => {});
      const reply = await Promise.race([answered, Bun.sleep(5_000).then(() => "no answer in 5 s")]);
      const ms = performance.now() - t0;
      stop = true;
      socket.destroy();
      expect({ path, status: reply.match(/HTTP\/1\.1 (?!100)(\d{3})/)?.[1] ?? reply }).toEqual({ path, status: "413" });
      expect(ms).toBeLessThan(5_000);
      // The request is in the access log as the 413 it was, not as a crash.
      const logged = async () =>
        it.server
          .logs()
          .split("\n")
          .some((l) => l.includes('"msg":"request"') && l.includes(`"path":"${path}"`) && l.includes('"status":413'));
      for (let i = 0; i < 40 && !(await logged()); i++) await Bun.sleep(100);
      expect({ path, logged: await logged() }).toEqual({ path, logged: true });
    }
    expect(it.server.logs()).not.toContain("maxRequestBodySize");
  });

  test("chunked bodies under the bound are read as they were sent: an upload at FILE_MAX_BYTES, a JSON call", async () => {
    const u = await user();
    const streamed = (bytes: Uint8Array) =>
      new ReadableStream<Uint8Array>({
        start(c) {
          for (let at = 0; at < bytes.byteLength; at += 1000) c.enqueue(bytes.slice(at, at + 1000));
          c.close();
        },
      });
    // A picture of exactly FILE_MAX_BYTES: level-0 deflate of noise, padded to the byte with a private chunk.
    const picture = png(300, 300, { fill: (i) => (i * 7919) % 251, level: 0 });
    const pad = MAX - picture.byteLength - 12;
    expect(pad).toBeGreaterThan(0);
    const exact = concat(picture.subarray(0, 33), pngChunk("prVt", new Uint8Array(pad)), picture.subarray(33));
    expect(exact.byteLength).toBe(MAX);
    const boundary = "chunked-b0undary";
    const send = async (file: Uint8Array) => {
      const body = concat(
        new TextEncoder().encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n` +
            "Content-Type: image/png\r\n\r\n",
        ),
        file,
        new TextEncoder().encode(`\r\n--${boundary}--\r\n`),
      );
      const res = await fetch(`${it.server.url}/api/files`, {
        method: "POST",
        headers: { "x-api-key": u.apiKey!, "content-type": `multipart/form-data; boundary=${boundary}` },
        body: streamed(body),
      });
      return { status: res.status, message: ((await res.json()) as { message: string }).message };
    };
    expect(await send(concat(exact, new Uint8Array(1)))).toEqual({
      status: 413,
      message: `invalid file: larger than ${MAX} bytes`,
    });
    expect(await send(exact)).toEqual({ status: 200, message: "file stored" });
    const list = await fetch(`${it.server.url}/api/files/list`, {
      method: "POST",
      headers: { "x-api-key": u.apiKey!, "content-type": "application/json" },
      body: streamed(new TextEncoder().encode(JSON.stringify({ page: 1 }))),
    });
    expect(((await list.json()) as { data: { total: number } }).data.total).toBe(1);
  });

  test("a file name with path traversal is ignored: the stored key is Atelier's own", async () => {
    const u = await user();
    const r = await upload(u.key, png(4, 4), { name: "../../../../etc/passwd" });
    expect(r.body.code).toBe(0);
    expect(
      readdirSync(join(it.server.dataDir, "files", "files")).every((n) => /^[A-Za-z0-9_-]+\.(png|jpg|webp)$/.test(n)),
    ).toBe(true);
  });

  test("quota: FILE_QUOTA_MB counts stored bytes; the upload past it is refused", async () => {
    const u = await user();
    // Different pictures: the same one again would be the same file, counted once.
    const big = (n: number) => png(300, 300, { fill: (i) => ((i + n) * 7919) % 251, level: 0 });
    expect(big(0).byteLength).toBeLessThan(MAX);
    let refused: Awaited<ReturnType<typeof upload>> | undefined;
    for (let i = 0; i < 5 && !refused; i++) {
      const r = await upload(u.key, big(i));
      if (r.body.code === 1) refused = r;
    }
    expect(refused).toEqual({
      status: 413,
      body: { code: 1, message: "file storage full: your files may take at most 1 MB", data: null },
    });
    expect((await it.api.post("/api/files/list", {}, u.key)).body.data.total).toBe(3);
  });

  test("upload flood: FILE_UPLOAD_LIMIT a minute, then 429", async () => {
    const u = await user();
    const statuses: number[] = [];
    for (let i = 0; i < 13; i++) statuses.push((await upload(u.key, png(2, 2))).status);
    expect(statuses.slice(0, 12).every((s) => s === 200)).toBe(true);
    expect(statuses[12]).toBe(429);
  });

  test("a session upload must carry the site's Origin (a cross-site form can post multipart)", async () => {
    const u = await user();
    expect((await upload(u.session, png(2, 2), { origin: null })).status).toBe(403);
    expect((await upload(u.session, png(2, 2), { origin: "https://evil.example" })).status).toBe(403);
    expect((await it.api.post("/api/files/list", {}, u.key)).body.data.total).toBe(0);
  });
});

describe("privacy", () => {
  test("another user's file is not found: open, delete, list, by key and session", async () => {
    const owner = await user();
    const other = await user();
    const f = (await upload(owner.key, png(5, 5))).body.data;
    for (const who of [other.key, other.session]) {
      expect((await open(f.url, who)).status).toBe(404);
      const del = await it.api.post("/api/files/delete", { file_id: f.file_id }, who);
      expect({ status: del.status, message: del.body.message }).toEqual({ status: 404, message: "file not found" });
      expect((await it.api.post("/api/files/list", {}, who)).body.data.total).toBe(0);
    }
    expect((await open(f.url, owner.key)).status).toBe(200);
  });

  test("signed links open for anyone until they expire; altered or expired links are refused", async () => {
    const u = await user();
    const f = (await upload(u.key, png(5, 5))).body.data;
    const now = Date.now();
    const link = signedFileUrl(TEST_AUTH_SECRET, f.file_id, now, 60).replace(/^(https?:\/\/[^/]*)?/, it.server.url);
    const ok = await fetch(link);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("image/png");
    const expired = signedFileUrl(TEST_AUTH_SECRET, f.file_id, now - 120_000, 60).replace(
      /^(https?:\/\/[^/]*)?/,
      it.server.url,
    );
    expect((await fetch(expired)).status).toBe(403);
    // The owner's credentials do not rescue a bad signature.
    expect((await open(expired, u.key)).status).toBe(403);
    const later = link.replace(/expires=(\d+)/, (_, n) => `expires=${Number(n) + 3600}`);
    expect((await fetch(later)).status).toBe(403);
    const otherSecret = signedFileUrl("x".repeat(40), f.file_id, now, 60).replace(
      /^(https?:\/\/[^/]*)?/,
      it.server.url,
    );
    expect((await fetch(otherSecret)).status).toBe(403);
    // A valid signature for one file does not open another.
    const g = (await upload(u.key, png(6, 6))).body.data;
    expect((await fetch(link.replace(f.file_id, g.file_id))).status).toBe(403);
  });
});
