/**
 * Profile fields: name (≤ 100 characters) and image (https URL ≤ 2,048)
 * are checked in better-auth's user create/update hooks, so its own API
 * (sign-up, update-user) cannot store a 200,000-character name.
 */
import { describe, expect, test } from "bun:test";
import { sessionCookie, uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

const s = serverForFile();

const post = (path: string, body: unknown, cookie?: string) =>
  fetch(s.server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: s.server.url, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
const signUp = (body: Record<string, unknown>) =>
  post("/api/auth/sign-up/email", { password: "correct-horse-battery", ...body });
const error = async (r: Response) => ({ status: r.status, ...((await r.json()) as { code: string; message: string }) });

describe("sign-up", () => {
  test("a 200,000-character name is refused with a clear error and no account", async () => {
    const email = uniqueEmail("huge");
    expect(await error(await signUp({ email, name: "x".repeat(200_000) }))).toMatchObject({
      status: 400,
      code: "INVALID_NAME",
      message: "name too long (max 100 characters)",
    });
    // No account was made: the address is still free.
    expect((await signUp({ email, name: "Fine" })).status).toBe(200);
  });

  test("100 characters (counted as people count them) are fine", async () => {
    const r = await signUp({ email: uniqueEmail("hundred"), name: `${"é".repeat(99)}🎨` });
    expect(r.status).toBe(200);
  });

  test("image must be an https URL of at most 2,048 characters", async () => {
    for (const image of [
      "http://example.com/a.png",
      "javascript:alert(1)",
      "data:image/png;base64,AAAA",
      "not a url",
      `https://example.com/${"a".repeat(2030)}`,
    ]) {
      expect(await error(await signUp({ email: uniqueEmail("img"), name: "Img", image }))).toMatchObject({
        status: 400,
        code: "INVALID_IMAGE",
      });
    }
    const ok = await signUp({ email: uniqueEmail("img-ok"), name: "Img", image: "https://example.com/me.png" });
    expect(ok.status).toBe(200);
    expect(
      (await s.api.post("/api/get-user-info", undefined, { cookie: sessionCookie(ok) })).body.data.avatar_url,
    ).toBe("https://example.com/me.png");
  });
});

describe("update-user", () => {
  test("the same rules; valid changes go through", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("upd"));
    expect(await error(await post("/api/auth/update-user", { name: "n".repeat(101) }, cookie))).toMatchObject({
      status: 400,
      code: "INVALID_NAME",
    });
    expect(
      await error(await post("/api/auth/update-user", { image: "http://insecure.example/a.png" }, cookie)),
    ).toMatchObject({ status: 400, code: "INVALID_IMAGE" });
    expect(
      (await post("/api/auth/update-user", { name: "n".repeat(100), image: "https://cdn.example/a.png" }, cookie))
        .status,
    ).toBe(200);
    const info = (await s.api.post("/api/get-user-info", undefined, { cookie })).body.data;
    expect(info.nickname).toBe("n".repeat(100));
    expect(info.avatar_url).toBe("https://cdn.example/a.png");
  });
});
