/**
 * review3: better-auth's endpoints (/api/auth/*) read their JSON bodies
 * themselves, so the 1 MiB cap of our JSON API did not apply: up to Bun's
 * 8 MiB transport ceiling was read and parsed before better-auth looked at it.
 * A 3 MB body of nested arrays cost the server ~0.45 s of CPU to refuse, and a
 * 1,000,000-deep object reached the endpoint's validation; better-auth's
 * general per-IP rule admits 100 requests per 10 s to most of its paths, so a
 * single client could keep cores busy. Account requests are tiny (an e-mail, a
 * password, a name): now a body over AUTH_MAX_BODY_BYTES (256 KiB) is refused
 * with 413 before it is read, declared or chunked.
 */
import { expect, test } from "bun:test";
import { serverForFile } from "../support/file-server";

const s = serverForFile();

const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
  fetch(s.server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: s.server.url, ...headers },
    body,
  });

test("a 3 MB nested body to sign-up and sign-in is refused with 413 before it is parsed", async () => {
  const body = `{"email":"a@b.co","password":"xxxxxxxx","name":${"[".repeat(3_000_000)}}`;
  for (const path of ["/api/auth/sign-up/email", "/api/auth/sign-in/email", "/api/auth/request-password-reset"]) {
    const t0 = performance.now();
    const r = await post(path, body);
    await r.text();
    console.log(`${path}: HTTP ${r.status} in ${(performance.now() - t0).toFixed(0)} ms`);
    expect({ path, status: r.status }).toEqual({ path, status: 413 });
  }
});

test("a chunked body (no Content-Length) past the cap is refused too", async () => {
  const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent === 0) c.enqueue(new TextEncoder().encode('{"email":"a@b.co","password":"xxxxxxxx","name":"x"'));
      if (sent++ < 200) c.enqueue(chunk);
      else {
        c.enqueue(new TextEncoder().encode("}"));
        c.close();
      }
    },
  });
  const r = await fetch(`${s.server.url}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: s.server.url },
    body: stream,
    // @ts-expect-error Bun/undici: a streamed request body
    duplex: "half",
  });
  await r.text();
  expect(r.status).toBe(413);
});

test("ordinary account requests still work", async () => {
  const r = await post(
    "/api/auth/sign-up/email",
    JSON.stringify({ email: `cap-${Date.now()}@example.test`, password: "correct-horse-battery", name: "Cap" }),
  );
  expect(r.status).toBe(200);
  const bad = await post(
    "/api/auth/sign-in/email",
    JSON.stringify({ email: "nobody@example.test", password: "wrong-password" }),
  );
  expect(bad.status).toBe(401);
});
