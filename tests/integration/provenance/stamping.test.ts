/**
 * Every result says it was made by AI (docs/provenance.md, issue #42), real HTTP against a started server: a
 * completed simulated image carries a C2PA manifest in a `caBX` chunk and XMP with trainedAlgorithmicMedia, a video
 * a manifest in a `uuid` box; POST /api/provenance/verify reads them with the C2PA SDK's Reader — valid for the
 * result, absent for a plain PNG, invalid once one byte of the pixel data changed; /verify answers anyone. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { png } from "../../support/images";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;
let cookie: string;

beforeAll(async () => {
  server = await startServer({ env: { SIGNUP_CREDITS: "200" } });
  api = new Client(server.url);
  cookie = (await api.signUp(uniqueEmail("prov"))).cookie;
});
afterAll(async () => {
  await server?.dispose();
});

async function result(body: Record<string, unknown>) {
  const r = await api.post("/api/generator/generate", body, { cookie });
  expect(r.body.code).toBe(0);
  const id = r.body.data.gen_id;
  for (let i = 0; i < 300; i++) {
    const q = await api.post("/api/generator/query", { gen_id: id }, { cookie });
    if (q.body.data.status === "completed") {
      const res = await fetch(new URL(q.body.data.result_urls[0], server.url), { headers: { cookie } });
      expect(res.status).toBe(200);
      return new Uint8Array(await res.arrayBuffer());
    }
    expect(q.body.data.status).not.toBe("failed");
    await Bun.sleep(100);
  }
  throw new Error("not completed");
}

/** The chunk types of a PNG, in order. */
function chunks(b: Uint8Array): { type: string; at: number; len: number }[] {
  const out = [];
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let at = 8; at + 8 <= b.length; ) {
    const len = dv.getUint32(at);
    out.push({ type: new TextDecoder().decode(b.subarray(at + 4, at + 8)), at, len });
    at += 12 + len;
  }
  return out;
}

async function verify(bytes: Uint8Array, name = "f.png") {
  const form = new FormData();
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  const res = await fetch(`${server.url}/api/provenance/verify`, { method: "POST", body: form });
  return { status: res.status, body: (await res.json()) as { code: number; message: string; data: any } };
}

const AI = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";

describe("results carry Content Credentials", () => {
  let image: Uint8Array;
  beforeAll(async () => {
    image = await result({
      ai_type: "image",
      provider: "replicate",
      model: "black-forest-labs/flux-schnell",
      prompt: "a lighthouse",
      options: {},
    });
  });

  test("a simulated image: a caBX chunk and XMP naming trainedAlgorithmicMedia", () => {
    const types = chunks(image).map((c) => c.type);
    expect(types).toContain("caBX");
    expect(types).toContain("iTXt");
    expect(Buffer.from(image).toString("latin1")).toContain("trainedAlgorithmicMedia");
    expect(types[0]).toBe("IHDR");
    expect(types.at(-1)).toBe("IEND");
  });

  test("verify: the result is valid, made by AI, by the task's model", async () => {
    const r = await verify(image);
    expect(r.body.code).toBe(0);
    expect(r.body.data).toMatchObject({
      format: "image/png",
      has_manifest: true,
      valid: true,
      model: "black-forest-labs/flux-schnell",
      action: "c2pa.created",
    });
    expect(r.body.data.digital_source_type).toBe(AI);
    expect(r.body.data.digital_source_type.endsWith("trainedAlgorithmicMedia")).toBe(true);
  });

  test("verify: a plain PNG has no manifest; one changed byte of pixel data is invalid", async () => {
    expect((await verify(png(8, 8))).body.data).toMatchObject({ has_manifest: false, valid: false });
    const idat = chunks(image).find((c) => c.type === "IDAT")!;
    const changed = image.slice();
    changed[idat.at + 8 + Math.floor(idat.len / 2)]! ^= 0x01;
    const r = await verify(changed);
    expect(r.body.code).toBe(0);
    expect(r.body.data.has_manifest).toBe(true);
    expect(r.body.data.valid).toBe(false);
  });

  test("verify refuses what is not a picture or a video, and JSON bodies", async () => {
    const r = await verify(new TextEncoder().encode("hello, not an image"), "a.txt");
    expect(r.body.code).toBe(1);
    expect(r.status).toBeGreaterThanOrEqual(400);
    const json = await api.post("/api/provenance/verify", { file: "x" });
    expect(json.body.code).toBe(1);
  });

  test("a simulated video carries a manifest in a uuid box", async () => {
    const video = await result({
      ai_type: "video",
      provider: "kling",
      model: "kling-v1",
      prompt: "waves",
      options: {},
    });
    expect(Buffer.from(video.subarray(4, 8)).toString("latin1")).toBe("ftyp");
    const boxes: string[] = [];
    const dv = new DataView(video.buffer, video.byteOffset, video.byteLength);
    for (let at = 0; at + 8 <= video.length; ) {
      const size = dv.getUint32(at);
      boxes.push(Buffer.from(video.subarray(at + 4, at + 8)).toString("latin1"));
      if (size < 8) break;
      at += size;
    }
    expect(boxes).toContain("uuid");
    const r = await verify(video, "v.mp4");
    expect(r.body.data).toMatchObject({ format: "video/mp4", has_manifest: true, valid: true, model: "kling-v1" });
  });

  test("/verify answers anyone, and reads a file posted as a form", async () => {
    const page = await fetch(`${server.url}/verify`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Content Credentials");
  });
});
