/**
 * The visitor's language (issue #44, docs/languages.md): ?lng=, else the lng cookie, else Accept-Language, else
 * English, on every page; the JSON API answers the spec's English whatever the request asks.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { LANGUAGE_CODES } from "~/lib/languages";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

const it = serverForFile();

const page = async (path: string, headers: Record<string, string> = {}) => {
  const r = await fetch(it.server.url + path, { headers, redirect: "manual" });
  expect(r.status).toBe(200);
  return r.text();
};
const langOf = (html: string) => /<html lang="([^"]+)"/.exec(html)?.[1];
const h1Of = (html: string) =>
  /<h1[^>]*>([\s\S]*?)<\/h1>/
    .exec(html)?.[1]
    ?.replace(/<[^>]+>/g, "")
    .replace(/<!-- -->/g, "")
    .trim();

const PAGES = ["/sign-in", "/", "/pricing"] as const;

// Each page's heading, per language: the visible text is the language's own.
const HEADINGS: Record<string, Record<(typeof PAGES)[number], RegExp>> = {
  en: { "/sign-in": /^Sign in$/, "/": /^Turn words into/, "/pricing": /^Pricing$/ },
  "zh-CN": { "/sign-in": /^登录$/, "/": /^把文字变成/, "/pricing": /^价格$/ },
  ja: { "/sign-in": /^ログイン$/, "/": /^言葉を/, "/pricing": /^料金$/ },
  de: { "/sign-in": /^Anmelden$/, "/": /^Aus Worten werden/, "/pricing": /^Preise$/ },
};

for (const path of PAGES) {
  test(`${path}: Accept-Language zh-CN → Chinese`, async () => {
    const html = await page(path, { "accept-language": "zh-CN,zh;q=0.9,en;q=0.5" });
    expect(langOf(html)).toBe("zh-CN");
    expect(h1Of(html)).toMatch(HEADINGS["zh-CN"]![path]);
    expect(html).toContain(">登录<");
  });

  test(`${path}: the lng=ja cookie → Japanese, over Accept-Language`, async () => {
    const html = await page(path, { cookie: "lng=ja", "accept-language": "zh-CN" });
    expect(langOf(html)).toBe("ja");
    expect(h1Of(html)).toMatch(HEADINGS.ja![path]);
  });

  test(`${path}: ?lng=de → German, over the cookie`, async () => {
    const html = await page(`${path}?lng=de`, { cookie: "lng=ja", "accept-language": "zh-CN" });
    expect(langOf(html)).toBe("de");
    expect(h1Of(html)).toMatch(HEADINGS.de![path]);
  });

  test(`${path}: no preference → English; unknown ones fall through`, async () => {
    expect(langOf(await page(path))).toBe("en");
    const html = await page(`${path}?lng=xx`, { cookie: "lng=klingon", "accept-language": "sw, tlh;q=0.5" });
    expect(langOf(html)).toBe("en");
    expect(h1Of(html)).toMatch(HEADINGS.en![path]);
  });

  test(`${path}: hreflang alternates for all seven languages, x-default and a canonical URL`, async () => {
    const html = await page(path);
    const links = [...html.matchAll(/<link rel="alternate" hrefLang="([^"]+)" href="([^"]+)"/g)];
    const byLang = new Map(links.map((m) => [m[1], m[2]]));
    expect([...byLang.keys()].sort()).toEqual([...LANGUAGE_CODES, "x-default"].sort());
    expect(LANGUAGE_CODES).toHaveLength(7);
    for (const lng of LANGUAGE_CODES) expect(byLang.get(lng)).toBe(`${it.server.url}${path}?lng=${lng}`);
    expect(byLang.get("x-default")).toBe(`${it.server.url}${path}`);
    expect(html).toContain(`<link rel="canonical" href="${it.server.url}${path}"`);
    expect(await page(`${path}?lng=fr`)).toContain(`<link rel="canonical" href="${it.server.url}${path}?lng=fr"`);
  });
}

test("Accept-Language: a region or base language picks the nearest supported one, by the visitor's order", async () => {
  expect(langOf(await page("/sign-in", { "accept-language": "pt;q=0.9, de;q=0.8" }))).toBe("pt-BR");
  expect(langOf(await page("/sign-in", { "accept-language": "de-AT, fr;q=0.8" }))).toBe("de");
  expect(langOf(await page("/sign-in", { "accept-language": "fr-CA;q=0.5, es-MX;q=0.9" }))).toBe("es");
});

test("the language menu: a form post sets the lng cookie and goes back to the page, without ?lng", async () => {
  const html = await page("/pricing?lng=ja");
  expect(html).toContain('action="/language"');
  const r = await fetch(`${it.server.url}/language`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: it.server.url },
    body: new URLSearchParams({ lng: "fr", redirectTo: "/pricing?lng=ja&plan=pro" }),
  });
  expect(r.status).toBe(302);
  expect(r.headers.get("location")).toBe("/pricing?plan=pro");
  const setCookie = r.headers.get("set-cookie") ?? "";
  expect(setCookie).toMatch(/^lng=fr; Path=\/; Max-Age=31536000; SameSite=Lax/);
  expect(langOf(await page("/pricing", { cookie: "lng=fr" }))).toBe("fr");
});

test("the language menu refuses another site's post, an unknown language and a foreign redirect", async () => {
  const post = (body: Record<string, string>, origin = it.server.url) =>
    fetch(`${it.server.url}/language`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: new URLSearchParams(body),
    });
  const cross = await post({ lng: "de", redirectTo: "/" }, "https://evil.example");
  expect(cross.status).toBe(403);
  expect(cross.headers.get("set-cookie")).toBeNull();
  const unknown = await post({ lng: "xx", redirectTo: "/pricing" });
  expect(unknown.status).toBe(302);
  expect(unknown.headers.get("set-cookie")).toBeNull();
  const away = await post({ lng: "de", redirectTo: "https://evil.example/x" });
  expect(away.headers.get("location")).toBe("/");
});

test("the JSON API is never translated", async () => {
  const noAuth = await it.api.post("/api/get-user-info", {}, {}, { headers: { "accept-language": "zh-CN" } });
  expect(noAuth.body).toMatchObject({ code: 1, message: "no auth, please sign-in" });
  const { cookie } = await it.api.signUp(uniqueEmail("lng-api"));
  const bad = await it.api.post(
    "/api/generator/generate",
    { ai_type: "image" },
    { cookie: `${cookie}; lng=ja` },
    { headers: { "accept-language": "ja", origin: it.server.url } },
  );
  expect(bad.body).toMatchObject({ code: 1, message: "invalid params: ai_type, provider, model, prompt required" });
  const query = await it.api.post("/api/get-user-info?lng=de", {}, {}, { headers: { cookie: "lng=de" } });
  expect(query.body.message).toBe("no auth, please sign-in");
});

test("the signed-in studio with lng=fr: the Generate button and the gallery heading in French", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("lng-studio"));
  const html = await page("/studio", { cookie: `${cookie}; lng=fr` });
  expect(langOf(html)).toBe("fr");
  // The submit button: its icon, then the label (HTML printed on failure would be ~100 KB: compare booleans).
  const labels = [...html.matchAll(/<button type="submit"[^>]*>(?:<svg[^>]*>[\s\S]*?<\/svg>)?([^<]+)/g)].map(
    (m) => m[1],
  );
  expect(labels).toContain("Générer");
  expect(labels).not.toContain("Generate");
  expect(/<h2 id="history-h"[^>]*>([^<]+)/.exec(html)?.[1]?.trim()).toBe("Votre galerie");
  expect(html.includes("Your gallery")).toBe(false);
  // The same account in English without the cookie: the choice is the visitor's, not stored in the session.
  const en = await page("/studio", { cookie });
  expect(/<h2 id="history-h"[^>]*>([^<]+)/.exec(en)?.[1]?.trim()).toBe("Your gallery");
});

test("a studio form answer speaks the page's language (the check-in notice)", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("lng-checkin"));
  const r = await fetch(`${it.server.url}/studio`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: it.server.url,
      cookie: `${cookie}; lng=de`,
    },
    body: new URLSearchParams({ intent: "checkin" }),
  });
  expect(r.status).toBe(200);
  const html = await r.text();
  expect(/Eingecheckt: 1 Credit gutgeschrieben|Du hast heute schon eingecheckt/.test(html)).toBe(true);
});

const postForm = (path: string, body: Record<string, string>, cookie: string) =>
  fetch(`${it.server.url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: it.server.url, cookie },
    body: new URLSearchParams(body),
  }).then(async (r) => ({ status: r.status, html: await r.text() }));

test("form answers in the page's language: field errors and a wrong password", async () => {
  const bad = await postForm("/sign-up", { name: "", email: "not-an-address", password: "short" }, "lng=de");
  expect(bad.status).toBe(200);
  for (const text of ["Gib deinen Namen ein", "Gib eine gültige E-Mail-Adresse ein", "Mindestens 8 Zeichen"])
    expect(bad.html.includes(text)).toBe(true);
  expect(bad.html.includes("Enter a valid email address")).toBe(false);
  const email = uniqueEmail("lng-wrong");
  await it.api.signUp(email);
  const wrong = await postForm("/sign-in", { email, password: "not-the-password" }, "lng=ja");
  expect(wrong.html.includes("メールアドレスまたはパスワードが正しくありません。")).toBe(true);
  // English without a choice: the messages the forms always had.
  const en = await postForm("/sign-in", { email, password: "not-the-password" }, "");
  expect(en.html.includes("Email or password is incorrect.")).toBe(true);
});

test("the feedback page and its answer in the page's language", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("lng-feedback"));
  const html = await page("/feedback", { cookie: `${cookie}; lng=es` });
  expect(h1Of(html)).toBe("Comentarios");
  expect(html.includes("¿Qué te parece Atelier hasta ahora?")).toBe(true);
  const sent = await postForm("/feedback", { content: "Muy bien", rating: "5" }, `${cookie}; lng=es`);
  expect(sent.html.includes("¡Gracias! Hemos recibido tus comentarios.")).toBe(true);
});
