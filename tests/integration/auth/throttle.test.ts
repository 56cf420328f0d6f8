/**
 * Sign-in and sign-up throttling (docs/decisions/036-sign-in-throttling.md). Per account (always on,
 * in the database, the same for unknown addresses) and per IP (better-auth's
 * limiter, database storage, AUTH_RATE_LIMIT).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

const PASSWORD = "correct-horse-battery";

const post = (server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url, ...headers },
    body: JSON.stringify(body),
  });
const signIn = (server: TestServer, email: string, password: string, headers?: Record<string, string>) =>
  post(server, "/api/auth/sign-in/email", { email, password }, headers);
const signInForm = (server: TestServer, email: string, password: string) =>
  fetch(`${server.url}/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
    body: new URLSearchParams({ email, password, next: "" }),
    redirect: "manual",
  });

describe("per account (AUTH_RATE_LIMIT=off: only this throttle is on)", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startServer();
    // A second process on the same database: the count is shared.
    b = await startServer({ dataDir: a.dataDir });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.dispose();
  });

  test("10 wrong passwords → 401 each; then 429 with Retry-After even for the right password, from another process too", async () => {
    const email = uniqueEmail("victim");
    await new Client(a.url).signUp(email);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await signIn(i % 2 ? b : a, email, `wrong-password-${i}`)).status);
    expect(statuses).toEqual(Array(10).fill(401));
    const locked = await signIn(b, email, PASSWORD);
    expect(locked.status).toBe(429);
    const retry = Number(locked.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(14 * 60);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    expect(((await locked.json()) as { code: string }).code).toBe("TOO_MANY_ATTEMPTS");
    expect((await signIn(a, email.toUpperCase(), PASSWORD)).status).toBe(429);
    // The no-JS form says so too.
    expect(await (await signInForm(a, email, PASSWORD)).text()).toContain("Too many failed sign-ins for this account");
    // Another account is not affected.
    const other = uniqueEmail("bystander");
    await new Client(a.url).signUp(other);
    expect((await signIn(a, other, PASSWORD)).status).toBe(200);
  });

  test("an unknown address gets exactly the same answers", async () => {
    const ghost = uniqueEmail("ghost");
    const answers: [number, unknown][] = [];
    for (let i = 0; i < 11; i++) {
      const r = await signIn(a, ghost, `guess-${i}`);
      answers.push([r.status, ((await r.json()) as { code: string }).code]);
    }
    expect(answers).toEqual([...Array(10).fill([401, "INVALID_EMAIL_OR_PASSWORD"]), [429, "TOO_MANY_ATTEMPTS"]]);
  });

  test("concurrent guesses cannot slip past the limit", async () => {
    const email = uniqueEmail("burst");
    await new Client(a.url).signUp(email);
    const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(i % 2 ? b : a, email, `burst-${i}`)));
    const count = (s: number) => rs.filter((r) => r.status === s).length;
    expect(count(401)).toBe(10);
    expect(count(429)).toBe(20);
  });

  test("a success clears the count", async () => {
    const email = uniqueEmail("forgetful");
    await new Client(a.url).signUp(email);
    for (let i = 0; i < 9; i++) expect((await signIn(a, email, `oops-${i}`)).status).toBe(401);
    expect((await signIn(a, email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await signIn(a, email, `oops-again-${i}`)).status).toBe(401);
    expect((await signIn(a, email, PASSWORD)).status).toBe(429);
  });
});

describe("per IP (AUTH_RATE_LIMIT on, the default)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ env: { AUTH_RATE_LIMIT: "on" } });
  });
  afterAll(async () => {
    await s?.dispose();
  });

  test("sign-in: 3 requests per 10 s per address, whatever X-Forwarded-For or our own header the client sends", async () => {
    const rs: number[] = [];
    for (let i = 0; i < 4; i++) {
      const spoof = { "x-forwarded-for": `203.0.113.${i}`, "x-atelier-client-ip": `198.51.100.${i}` };
      rs.push((await signIn(s, uniqueEmail(`ip${i}`), "whatever-password", spoof)).status);
    }
    expect(rs).toEqual([401, 401, 401, 429]);
    // The form posts go through the same limiter.
    expect(await (await signInForm(s, uniqueEmail("form"), "whatever-password")).text()).toContain(
      "Too many attempts from your network",
    );
  });

  test("the count lives in the database: a second process on the same data sees it", async () => {
    const other = await startServer({ dataDir: s.dataDir, env: { AUTH_RATE_LIMIT: "on" } });
    try {
      const ask = (srv: TestServer) =>
        post(srv, "/api/auth/request-password-reset", { email: uniqueEmail("reset"), redirectTo: "/reset-password" });
      const rs = [await ask(s), await ask(other), await ask(s), await ask(other)];
      expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    } finally {
      await other.stop();
    }
  });

  test("a burst of 20 sign-ups: 10 accounts, the rest 429 (no free credits for them)", async () => {
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(s, "/api/auth/sign-up/email", { email: uniqueEmail(`farm${i}`), password: PASSWORD, name: "farm" }),
      ),
    );
    expect(rs.filter((r) => r.status === 200).length).toBe(10);
    expect(rs.filter((r) => r.status === 429).length).toBe(10);
    const rows = await queryServerDb(
      s.dataDir,
      "SELECT count(*) AS n, sum(amount) AS credits FROM credit_grants WHERE source = 'signup'",
    );
    expect(rows).toEqual([{ n: 10, credits: 100 }]);
  });
});
