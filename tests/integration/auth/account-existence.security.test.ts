/**
 * With SMTP_URL set, nothing tells whether an address has an account (docs/api.md, better-auth's sign-up): a
 * sign-up for a taken address gets the very bytes a new one gets (ids and instants aside, which are fresh in both),
 * invite code and inviter included; and a reset request does the same work for both — it answers before touching
 * the database, so a lock on the table its token goes to delays neither answer (PostgreSQL run).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { type SmtpFake, startSmtp } from "../../fakes/smtp";
import { Client, uniqueEmail } from "../../support/client";
import { markVerifiedIn } from "../../support/db";
import { postgresOnly } from "../../support/engine";
import { databaseUrlOf, startServer, type TestServer } from "../../support/server";

let smtp: SmtpFake;
let server: TestServer;
let api: Client;
let inviteCode = "";

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ env: { SMTP_URL: smtp.url } });
  api = new Client(server.url);
  // An inviter whose code both sign-ups carry.
  const inviter = uniqueEmail("inviter");
  const up = await post("/api/auth/sign-up/email", { email: inviter, password: "correct-horse-battery", name: "I" });
  const id = ((await up.json()) as { user: { id: string } }).user.id;
  await markVerifiedIn(server.dataDir, id);
  const cookie = await api.signIn(inviter);
  inviteCode = (await api.post("/api/get-user-info", undefined, { cookie })).body.data.invite_code;
});
afterAll(async () => {
  await server?.dispose();
  await smtp?.close();
});

function post(path: string, body: unknown) {
  return fetch(server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify(body),
  });
}

/** The reply with what is fresh in every reply (ids, instants, the request id) put in placeholders. */
async function shape(res: Response, email: string) {
  const text = await res.text();
  const headers = [...res.headers.entries()]
    .filter(([k]) => !["date", "x-request-id", "content-length"].includes(k))
    .sort(([a], [b]) => a.localeCompare(b));
  return {
    status: res.status,
    headers,
    body: text
      .replaceAll(email, "<email>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "<instant>"),
  };
}

describe("sign-up with mail says nothing about the address", () => {
  test("a taken address and a new one get the same bytes, with an invite code (`ref`) too", async () => {
    const taken = uniqueEmail("taken");
    await post("/api/auth/sign-up/email", { email: taken, password: "correct-horse-battery", name: "Same" });
    const fresh = uniqueEmail("fresh");
    for (const ref of [undefined, inviteCode]) {
      const body = (email: string) => ({ email, password: "another-password-1", name: "Same", ref });
      const again = await shape(await post("/api/auth/sign-up/email", body(taken)), taken);
      const other = uniqueEmail("fresh");
      const first = await shape(await post("/api/auth/sign-up/email", body(ref ? other : fresh)), ref ? other : fresh);
      expect(again).toEqual(first);
      expect(first.body).not.toContain("inviteCode");
      expect(first.body).not.toContain("invitedBy");
    }
  });
});

/**
 * Holds the table reset tokens are written to, so a request that writes one waits (reads go on). PostgreSQL only:
 * SQLite's driver waits for its lock synchronously, which would stall the whole process, answers included.
 */
async function holdVerificationWrites(): Promise<() => Promise<void>> {
  const sql = postgres(databaseUrlOf(server.dataDir)!, { max: 1, onnotice: () => {} });
  const reserved = await sql.reserve();
  await reserved`BEGIN`;
  await reserved`LOCK TABLE verification IN EXCLUSIVE MODE`;
  return async () => {
    await reserved`ROLLBACK`;
    reserved.release();
    await sql.end();
  };
}

describe("a reset request does the same work for every address", () => {
  postgresOnly("locks a PostgreSQL table")(
    "both answer at once, alike, while the token table is locked",
    async () => {
      const known = uniqueEmail("known");
      await post("/api/auth/sign-up/email", { email: known, password: "correct-horse-battery", name: "K" });
      const unknown = uniqueEmail("unknown");
      const release = await holdVerificationWrites();
      const replies: Array<{ ms: number; shape: Awaited<ReturnType<typeof shape>> }> = [];
      try {
        for (const email of [unknown, known]) {
          const t0 = performance.now();
          const res = await post("/api/auth/request-password-reset", { email, redirectTo: "/reset-password" });
          replies.push({ ms: performance.now() - t0, shape: await shape(res, email) });
        }
      } finally {
        await release();
      }
      expect(replies[1]!.shape).toEqual(replies[0]!.shape);
      expect(replies[0]!.shape.status).toBe(200);
      for (const r of replies) expect(r.ms).toBeLessThan(1500);
      // The work happened after the answer: the owner's mail arrives once the lock is gone.
      expect((await smtp.take(known, "Reset your Atelier password")).text).toContain("/reset-password?token=");
    },
    30_000,
  );
});
