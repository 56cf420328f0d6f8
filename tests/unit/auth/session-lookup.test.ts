/**
 * The fast session lookup (app/http/session-lookup.server.ts) agrees with
 * better-auth's getSession: the same user for a valid cookie, nobody for a
 * tampered, foreign or unknown one, and better-auth's turn whenever the
 * session is expired or due for its sliding refresh.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { session } from "#db/schema";
import { ASK_BETTER_AUTH, readCookie, SESSION_RECHECK_MS, sessionUserId } from "~/http/session-lookup.server";
import { installTestServices, uninstallTestServices } from "../../support/services";

afterEach(uninstallTestServices);

const DAY = 86_400_000;

async function signedIn() {
  const t = installTestServices();
  const { headers, response } = await t.services.auth.api.signUpEmail({
    body: {
      email: `s${Math.random().toString(36).slice(2)}@example.test`,
      password: "correct-horse-battery",
      name: "S",
    },
    returnHeaders: true,
  });
  const cookie = headers.getSetCookie()[0]!.split(";")[0]!;
  return { ...t, cookie, userId: response.user.id, token: response.token! };
}
const h = (cookie: string) => new Headers({ cookie });

describe("fast session lookup", () => {
  test("a valid cookie → the same user better-auth finds", async () => {
    const { services, db, cookie, userId } = await signedIn();
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBe(userId);
    expect((await services.auth.api.getSession({ headers: h(cookie) }))?.user.id).toBe(userId);
    // Among other cookies, in any position.
    expect(await sessionUserId(services.auth, db, h(`theme=dark; ${cookie}; other=1`), Date.now())).toBe(userId);
  });

  test("no cookie, a tampered token or signature, another secret's signature, garbage → nobody (better-auth agrees)", async () => {
    const { services, db, cookie } = await signedIn();
    const [name, value] = [
      cookie.slice(0, cookie.indexOf("=")),
      decodeURIComponent(cookie.slice(cookie.indexOf("=") + 1)),
    ];
    const [token, sig] = [value.slice(0, value.lastIndexOf(".")), value.slice(value.lastIndexOf(".") + 1)];
    const flip = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
    const bad = [
      "",
      "theme=dark",
      `${name}=${encodeURIComponent(`${flip(token)}.${sig}`)}`,
      `${name}=${encodeURIComponent(`${token}.${flip(sig)}`)}`,
      `${name}=${encodeURIComponent(token)}`,
      `${name}=${encodeURIComponent(`${token}.`)}`,
      `${name}=%E0%A4%A`,
      `${name}=${encodeURIComponent(`${token}.${"A".repeat(43)}=`)}`,
    ];
    for (const c of bad) {
      expect({ c, fast: await sessionUserId(services.auth, db, h(c), Date.now()) }).toEqual({ c, fast: null });
      expect({ c, auth: await services.auth.api.getSession({ headers: h(c) }) }).toEqual({ c, auth: null });
    }
  });

  test("a signed token whose session was deleted (signed out) → nobody", async () => {
    const { services, db, cookie, token } = await signedIn();
    db.delete(session).where(eq(session.token, token)).run();
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBeNull();
    expect(await services.auth.api.getSession({ headers: h(cookie) })).toBeNull();
  });

  test("expired, or due for the sliding refresh (updateAge, 1 day) → better-auth's turn", async () => {
    const { services, db, cookie, userId, token } = await signedIn();
    const row = db.select().from(session).where(eq(session.token, token)).get()!;
    const expires = row.expiresAt.getTime(); // created + 7 days
    expect(await sessionUserId(services.auth, db, h(cookie), expires - 7 * DAY + 1000)).toBe(userId);
    expect(await sessionUserId(services.auth, db, h(cookie), expires - 6 * DAY - 1000)).toBe(userId);
    expect(await sessionUserId(services.auth, db, h(cookie), expires - 6 * DAY)).toBe(ASK_BETTER_AUTH);
    expect(await sessionUserId(services.auth, db, h(cookie), expires)).toBe(ASK_BETTER_AUTH);
    // better-auth then refreshes the row (sliding expiry): the fast path takes over again.
    db.update(session)
      .set({ expiresAt: new Date(Date.now() + 6 * DAY - 60_000) })
      .where(eq(session.token, token))
      .run();
    expect(await services.auth.api.getSession({ headers: h(cookie) })).not.toBeNull();
    const refreshed = db.select().from(session).where(eq(session.token, token)).get()!;
    expect(refreshed.expiresAt.getTime()).toBeGreaterThan(Date.now() + 6 * DAY);
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBe(userId);
  });

  test("a remembered cookie: signed out in this process → refused at once", async () => {
    const { services, db, cookie, userId } = await signedIn();
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBe(userId); // now remembered
    await services.auth.api.signOut({ headers: h(cookie) });
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBeNull();
  });

  test("a remembered cookie: all the user's sessions revoked in this process → refused at once", async () => {
    const { services, db, cookie, userId } = await signedIn();
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBe(userId);
    await services.auth.api.revokeSessions({ headers: h(cookie) });
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBeNull();
  });

  test("a remembered cookie: deleted by another process → refused within SESSION_RECHECK_MS", async () => {
    const { services, db, cookie, userId, token } = await signedIn();
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBe(userId);
    // Another process deletes the row: no hook runs here.
    db.sqlite!.run("DELETE FROM session WHERE token = ?", [token]);
    await Bun.sleep(SESSION_RECHECK_MS + 50);
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBeNull();
  });

  test("a remembered cookie: expiry and the refresh point are still judged on every request", async () => {
    const { services, db, cookie, userId, token } = await signedIn();
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBe(userId);
    const expires = db.select().from(session).where(eq(session.token, token)).get()!.expiresAt.getTime();
    expect(await sessionUserId(services.auth, db, h(cookie), expires - 6 * DAY)).toBe(ASK_BETTER_AUTH);
    expect(await sessionUserId(services.auth, db, h(cookie), expires)).toBe(ASK_BETTER_AUTH);
    expect(await sessionUserId(services.auth, db, h(cookie), Date.now())).toBe(userId);
  });

  test("readCookie: exact names only, URI-decoded", () => {
    expect(readCookie("a=1; ab=2; b=%3D", "b")).toBe("=");
    expect(readCookie("xa=1", "a")).toBeUndefined();
    expect(readCookie(null, "a")).toBeUndefined();
  });
});
