/**
 * An `https://` input URL that works (docs/api.md §4.17, docs/catalog.md "Image inputs"): a real HTTPS server on
 * loopback with a certificate made here serves a PNG; the server under test trusts that certificate
 * (NODE_EXTRA_CA_CERTS) and may reach loopback only because OUTBOUND_ALLOW_PRIVATE is on (the fakes' setting;
 * tests/integration/files/inputs.test.ts pins the production refusal). The task is created, the picture becomes a file
 * of the user and Replicate's fake downloads the very bytes stored; a picture the user already has is that file. A
 * server whose certificate nobody trusts is still refused: verification stays on.
 */
import { describe, expect, test } from "bun:test";
import { sha256hex } from "../../fakes/common";
import { startReplicateFake } from "../../fakes/replicate";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/fixtures";
import { png } from "../../support/images";
import { selfSignedCertificate } from "../../support/tls";
import { until } from "../../support/until";

const trusted = selfSignedCertificate();
const untrusted = selfSignedCertificate();
const PICTURE = png(96, 64, { fill: (i) => (i * 7) & 255 });

/** An HTTPS picture host; counts the requests it answers. */
function pictureHost(tls: { cert: string; key: string }) {
  const hits: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert: tls.cert, key: tls.key },
    fetch(req) {
      const url = new URL(req.url);
      hits.push(url.pathname);
      // /to/<scheme>/<port>/<path>: a redirect to that scheme on loopback.
      const to = /^\/to\/(https?)\/(\d+)(\/.*)$/.exec(url.pathname);
      if (to)
        return new Response(null, { status: 302, headers: { location: `${to[1]}://127.0.0.1:${to[2]}${to[3]}` } });
      return new Response(PICTURE, { headers: { "content-type": "image/png" } });
    },
  });
  return { origin: `https://127.0.0.1:${server.port}`, hits, stop: () => server.stop(true) };
}

const host = pictureHost(trusted);
const stranger = pictureHost(untrusted);
/** The same picture over plain HTTP: where a downgrading redirect would lead. */
const plainHits: string[] = [];
const plain = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    plainHits.push(new URL(req.url).pathname);
    return new Response(PICTURE, { headers: { "content-type": "image/png" } });
  },
});
const replicate = startReplicateFake();
replicate.steps = { starting: 0, processing: 0 };

const it = serverForFile(
  {
    env: {
      SIGNUP_CREDITS: "20",
      REPLICATE_API_TOKEN: replicate.token,
      REPLICATE_BASE_URL: replicate.baseUrl,
      OUTBOUND_ALLOW_PRIVATE: "true",
      NODE_EXTRA_CA_CERTS: trusted.certPath,
    },
  },
  async () => {
    await Promise.all([host.stop(), stranger.stop(), replicate.stop(), plain.stop(true)]);
    trusted.remove();
    untrusted.remove();
  },
);

async function user() {
  const { cookie } = await it.api.signUp(uniqueEmail("urls"));
  const apiKey = (await it.api.post("/api/keys/create", { name: "urls" }, { cookie })).body.data.key as string;
  return { apiKey };
}

const edit = (who: { apiKey: string }, image: string) =>
  it.api.post(
    "/api/generator/generate",
    {
      ai_type: "image",
      provider: "replicate",
      model: "black-forest-labs/flux-kontext-pro",
      prompt: "the same street in snow",
      options: { image },
    },
    who,
  );

describe("an https input URL", () => {
  test("is fetched, stored as the user's file, and the provider downloads those bytes", async () => {
    const u = await user();
    const r = await edit(u, `${host.origin}/street.png?size=large`);
    expect(r.body.code).toBe(0);
    expect(host.hits).toEqual(["/street.png"]);

    const listed = (await it.api.post("/api/files/list", {}, u)).body.data;
    expect(listed.total).toBe(1);
    const file = listed.files[0];
    expect(file).toMatchObject({ content_type: "image/png", width: 96, height: 64, bytes: PICTURE.byteLength });
    // Used by the task at once: it lives as long as the task.
    expect(file.expires_at).toBeNull();
    const stored = await fetch(`${it.server.url}${new URL(file.url, it.server.url).pathname}`, {
      headers: { "x-api-key": u.apiKey },
    });
    expect(stored.status).toBe(200);
    expect(sha256hex(new Uint8Array(await stored.arrayBuffer()))).toBe(sha256hex(PICTURE));

    const genId = r.body.data.gen_id as string;
    const done = await until("the task ends", async () => {
      const q = await it.api.post("/api/generator/query", { gen_id: genId }, u);
      return q.body.data.status === "completed" || q.body.data.status === "failed" ? q.body.data : undefined;
    });
    expect({ status: done.status, error: done.error_message, inputs: done.inputs }).toEqual({
      status: "completed",
      error: undefined,
      inputs: { image: file.url },
    });
    // Replicate was given a link (signed, on PUBLIC_URL), fetched it and got the picture the user's URL served.
    expect(replicate.state.fetched).toHaveLength(1);
    const got = replicate.state.fetched[0]!;
    expect(got).toMatchObject({ field: "input_image", contentType: "image/png", sha256: sha256hex(PICTURE) });
    expect(got.url).toStartWith(`${it.server.url}/files/${file.file_id}?expires=`);
  });

  test("a URL serving a picture the user already has is that file; a refused create leaves it be", async () => {
    const u = await user();
    const mine = (await it.api.upload(PICTURE, u, { name: "mine.png" })).body as {
      data: { file_id: string; url: string };
    };
    // Refused after the URL was resolved (the mask is nobody's file): the file it resolved to was already theirs.
    const refused = await it.api.post(
      "/api/generator/generate",
      {
        ai_type: "image",
        provider: "openai",
        model: "gpt-image-1",
        prompt: "make it night",
        options: { image: `${host.origin}/again.png`, mask: "file_nobodysfile0000000" },
      },
      u,
    );
    expect(refused.body.message).toBe("invalid params: options.mask: file not found");
    expect((await fetch(mine.data.url, { headers: { "x-api-key": u.apiKey } })).status).toBe(200);
    const r = await edit(u, `${host.origin}/again.png`);
    expect(r.body.code).toBe(0);
    const q = await it.api.post("/api/generator/query", { gen_id: r.body.data.gen_id }, u);
    expect(q.body.data.inputs).toEqual({ image: mine.data.url });
    expect((await it.api.post("/api/files/list", {}, u)).body.data.total).toBe(1);
  });

  test("an https URL stays https through redirects: one to http:// is refused unfollowed, one to https:// followed", async () => {
    const u = await user();
    const credits = (await it.api.post("/api/get-user-credits", {}, u)).body.data.left_credits;
    const r = await edit(u, `${host.origin}/to/http/${plain.port}/street.png`);
    expect(r.body).toEqual({
      code: 1,
      message:
        "invalid params: options.image: the URL cannot be fetched: a redirect to http:// is not allowed (https only)",
      data: null,
    });
    expect(plainHits).toEqual([]);
    expect((await it.api.post("/api/get-user-credits", {}, u)).body.data.left_credits).toBe(credits);
    expect((await it.api.post("/api/files/list", {}, u)).body.data.total).toBe(0);
    const port = new URL(host.origin).port;
    const followed = await edit(u, `${host.origin}/to/https/${port}/snow.png`);
    expect(followed.body.code).toBe(0);
    expect(host.hits.slice(-2)).toEqual([`/to/https/${port}/snow.png`, "/snow.png"]);
  });

  test("a certificate the server does not trust refuses the create: nothing charged or stored", async () => {
    const u = await user();
    const credits = (await it.api.post("/api/get-user-credits", {}, u)).body.data.left_credits;
    const r = await edit(u, `${stranger.origin}/street.png`);
    expect(r.body).toEqual({
      code: 1,
      message: "invalid params: options.image: the URL cannot be fetched",
      data: null,
    });
    expect((await it.api.post("/api/get-user-credits", {}, u)).body.data.left_credits).toBe(credits);
    expect((await it.api.post("/api/files/list", {}, u)).body.data.total).toBe(0);
    expect((await it.api.post("/api/generator/history", {}, u)).body.data.total).toBe(0);
  });
});
