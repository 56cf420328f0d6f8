/**
 * Bad input against EVERY form action of the pages (the JSON API has tests/integration/bad-input.test.ts): each
 * route and each of its intents, anonymously, signed in and as an admin, with fields missing, empty, huge, of the
 * wrong shape, naming ids that do not exist or are someone else's. A page answers with its form errors, a
 * redirect, a 4xx or the envelope — never a 5xx — and the server logs no error (an error line pages an operator).
 *
 * The table must name every page with an action and every intent its source handles: a new form without a row
 * here fails the first test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import routes from "~/routes";
import { Client, uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { ROOT, startServer, type TestServer } from "../../support/server";

interface FormRoute {
  /** The page's path (`:genId` and `:checkoutId` are filled in per request). */
  path: string;
  /** The intents its action handles; "" posts without one. */
  intents: string[];
  /** The fields it reads. */
  fields: string[];
  /** Source files whose intents must all be listed (besides the route's own). */
  alsoIn?: string[];
}

const FORMS: Record<string, FormRoute> = {
  "routes/sign-up.tsx": { path: "/sign-up", intents: [""], fields: ["name", "email", "password", "ref"] },
  "routes/sign-in.tsx": { path: "/sign-in", intents: [""], fields: ["email", "password", "next"] },
  "routes/sign-out.tsx": { path: "/sign-out", intents: [""], fields: [] },
  "routes/sign-in-two-factor.tsx": { path: "/sign-in/two-factor", intents: [""], fields: ["code", "method", "next"] },
  "routes/account-two-factor.tsx": {
    path: "/account/two-factor",
    intents: ["enable", "verify", "backup-codes", "disable"],
    fields: ["password", "code", "totp_uri"],
  },
  "routes/sign-in-provider.tsx": { path: "/sign-in/provider", intents: [""], fields: ["provider", "next", "ref"] },
  "routes/account-sign-in.tsx": {
    path: "/account/sign-in",
    intents: ["link", "unlink", "passkey-delete"],
    fields: ["provider", "account", "passkey"],
  },
  "routes/verify-email.tsx": { path: "/verify-email", intents: [""], fields: ["email"] },
  "routes/forgot-password.tsx": { path: "/forgot-password", intents: [""], fields: ["email"] },
  "routes/reset-password.tsx": { path: "/reset-password", intents: [""], fields: ["token", "password", "confirm"] },
  "routes/account.tsx": {
    path: "/account",
    intents: ["checkin", "affiliate", "delete-account"],
    fields: ["is_affiliate", "confirm", "password"],
  },
  "routes/keys.tsx": {
    path: "/keys",
    intents: [
      "create",
      "revoke",
      "update",
      "webhook-create",
      "webhook-delete",
      "webhook-rotate",
      "webhook-test",
      "webhook-resend",
      "webhook-events",
    ],
    fields: [
      "name",
      "key_id",
      "scopes",
      "cap_credits",
      "cap_period",
      "url",
      "events",
      "description",
      "webhook_id",
      "delivery_id",
    ],
    alsoIn: ["app/domain/webhooks/page.server.ts"],
  },
  "routes/feedback.tsx": { path: "/feedback", intents: [""], fields: ["content", "rating"] },
  "routes/studio.tsx": {
    path: "/studio",
    intents: ["create", "compare", "hide", "unhide", "cancel", "checkin", "enhance", "upload", "use-result"],
    fields: [
      "compare",
      "variation",
      "gen_id",
      "offering",
      "prompt",
      "make",
      "via",
      "size",
      "duration",
      "slot",
      "file",
      "kind",
      "to",
      "opt_image",
      "input_image",
    ],
    alsoIn: ["app/routes/studio-pictures.server.ts"],
  },
  "routes/studio-detail.tsx": {
    path: "/studio/:genId",
    intents: ["hide", "unhide", "report"],
    fields: ["reason", "details"],
  },
  "routes/admin-reports.tsx": { path: "/admin/reports", intents: [""], fields: ["report_id", "action", "note"] },
  "routes/playground.tsx": { path: "/playground", intents: ["text", "image"], fields: ["prompt", "model", "size"] },
  "routes/admin.tsx": {
    path: "/admin",
    intents: ["grant", "subscribe", "suspend"],
    fields: [
      "user_uuid",
      "email",
      "credits",
      "expires_in_days",
      "product_id",
      "product_name",
      "interval",
      "amount",
      "suspended",
      "reason",
    ],
  },
  "routes/verify.tsx": { path: "/verify", intents: [""], fields: ["file"] },
  "routes/admin-safety.tsx": {
    path: "/admin/safety",
    intents: ["block", "unblock", "test"],
    fields: ["term", "prompt"],
  },
  "routes/admin-billing.tsx": {
    path: "/admin/billing",
    intents: [""],
    fields: ["product_id", "name", "kind", "credits", "interval", "amount", "currency", "active", "sort_order"],
  },
  "routes/admin-models.tsx": {
    path: "/admin/models",
    intents: [""],
    fields: [
      "ai_type",
      "provider",
      "model",
      "label",
      "credits",
      "enabled",
      "requires_plan",
      "upstream_model",
      "options",
      "cost_usd",
      "cost_per",
    ],
  },
  "routes/pricing.tsx": { path: "/pricing", intents: ["", "portal", "cancel-simulated"], fields: ["product_id"] },
  "routes/billing-simulated.tsx": {
    path: "/billing/simulated/:checkoutId",
    intents: [""],
    fields: ["outcome", "token"],
  },
};

const UNKNOWN_ID = "00000000-0000-0000-0000-000000000000";
/** Values every field gets in turn (all fields at once, one variant per request). */
const GARBAGE = ["", "x".repeat(20_000), "-1", UNKNOWN_ID, "../../etc/passwd", "\u0000\u202e"];

let server: TestServer;
let api: Client;
const emails = { user: uniqueEmail("fuzz-user"), admin: uniqueEmail("fuzz-admin") };
let othersGen = "";

/** Fresh sessions for each route: a sign-out (or a reset) posted to one route must not sign the next one out. */
async function identities(): Promise<Array<[string, string | undefined]>> {
  return [
    ["anonymous", undefined],
    ["user", await api.signIn(emails.user)],
    ["admin", await api.signIn(emails.admin)],
  ];
}

beforeAll(async () => {
  server = await startServer({ env: { SIGNUP_CREDITS: "200" } });
  api = new Client(server.url);
  await api.signUp(emails.user);
  const other = await api.signUp(uniqueEmail("fuzz-other"));
  const admin = await api.signUp(emails.admin);
  await queryServerDb(server.dataDir, `UPDATE "user" SET role = 'admin' WHERE id = ?`, admin.userId);
  const made = await api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "someone else's" },
    { cookie: other.cookie },
  );
  othersGen = made.body.data.gen_id;
}, 60_000);
afterAll(async () => {
  await server?.dispose();
});

/** The page modules with an action, as app/routes.ts lists them. */
function actionRoutes(): string[] {
  const files: string[] = [];
  const walk = (entries: Array<{ file: string; children?: unknown[] }>) => {
    for (const e of entries) {
      const source = readFileSync(join(ROOT, "app", e.file), "utf8");
      if (e.file.endsWith(".tsx") && /export (async )?function action|export const action/.test(source))
        files.push(e.file);
      if (e.children) walk(e.children as Array<{ file: string; children?: unknown[] }>);
    }
  };
  walk(routes as unknown as Array<{ file: string; children?: unknown[] }>);
  return files;
}

/** Intent names a source compares against. */
function intentsIn(source: string): string[] {
  const found = new Set<string>();
  for (const m of source.matchAll(/intent(?:\)|\s*\?\?\s*"")?\)?\s*===\s*"([a-z-]+)"/g)) found.add(m[1]!);
  for (const m of source.matchAll(/get\("intent"\)\s*===\s*"([a-z-]+)"/g)) found.add(m[1]!);
  for (const m of source.matchAll(/name="intent"\s+value="([a-z-]+)"/g)) found.add(m[1]!);
  return [...found];
}

describe("every form route and intent is in the table", () => {
  test("the pages with an action, and the intents their sources name", () => {
    expect(actionRoutes().sort()).toEqual(Object.keys(FORMS).sort());
    for (const [file, form] of Object.entries(FORMS)) {
      const sources = [join(ROOT, "app", file), ...(form.alsoIn ?? []).map((f) => join(ROOT, f))];
      for (const source of sources)
        for (const intent of intentsIn(readFileSync(source, "utf8")))
          expect({ file, intent, listed: form.intents.includes(intent) }).toEqual({ file, intent, listed: true });
    }
  });
});

async function post(path: string, fields: Array<[string, string]>, cookie: string | undefined) {
  const body = new URLSearchParams(fields);
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: server.url,
      ...(cookie ? { cookie } : {}),
    },
    body,
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res.status;
}

describe("bad input to every form action", () => {
  test("never a 5xx, never an error in the log", async () => {
    const failures: string[] = [];
    let signedInAnswers = 0;
    for (const [file, form] of Object.entries(FORMS)) {
      for (const [identity, cookie] of await identities()) {
        for (const id of [UNKNOWN_ID, othersGen, "not-an-id"]) {
          const path = form.path.replace(":genId", id).replace(":checkoutId", id);
          for (const intent of [...form.intents, "bogus"]) {
            const base: Array<[string, string]> = intent ? [["intent", intent]] : [];
            const bodies: Array<Array<[string, string]>> = [
              base,
              ...GARBAGE.map((value) => [...base, ...form.fields.map((f): [string, string] => [f, value])]),
              [
                ...base,
                ...form.fields.flatMap(
                  (f): Array<[string, string]> => [
                    [f, id],
                    [f, "second"],
                  ],
                ),
              ],
            ];
            for (const fields of bodies) {
              const status = await post(path, fields, cookie);
              if (cookie && status !== 302 && status !== 303) signedInAnswers++;
              if (status >= 500)
                failures.push(`${file} ${identity} POST ${path} ${JSON.stringify(fields).slice(0, 160)} → ${status}`);
            }
          }
          if (!form.path.includes(":")) break;
        }
      }
    }
    const errors = server
      .logs()
      .split("\n")
      .filter((line) => line.includes('"level":"error"'))
      .map((line) => line.slice(0, 300));
    expect(failures).toEqual([]);
    expect(errors).toEqual([]);
    // The signed-in identities reached the actions (a sign-out midway would have sent them all to /sign-in).
    expect(signedInAnswers).toBeGreaterThan(300);
  }, 400_000);
});
