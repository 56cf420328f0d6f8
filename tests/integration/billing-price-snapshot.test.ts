/**
 * Security review (money invariants, DESIGN §9): a Checkout Session is priced
 * when it is created (price_data.unit_amount = the product's amount then), but
 * fulfilment grants the product's credits as they are when the payment event
 * arrives (fulfil.server.ts reads the product row again). A buyer who opens
 * sessions while a product is cheap and pays them after an admin re-prices it
 * (a bigger pack at a higher price under the same id) gets the new credits for
 * the old price. Expected: the credits bought are fixed at checkout time
 * (checkouts row / session metadata) and the grant uses them.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Db } from "#db/client";
import { upsertProduct } from "~/domain/billing/products.server";
import { systemClock } from "~/lib/clock";
import { startStripeFake, type StripeFake } from "../fakes/stripe";
import { Client, uniqueEmail } from "../support/client";
import { openServerDb } from "../support/db";
import { startServer, type TestServer } from "../support/server";

setDefaultTimeout(30_000);

let server: TestServer;
let stripe: StripeFake;
let api: Client;
let db: Db;

const SIGNUP = 10; // SIGNUP_CREDITS default

beforeAll(async () => {
  stripe = startStripeFake();
  server = await startServer({ env: stripe.env });
  stripe.webhookUrl = `${server.url}/api/billing/webhook/stripe`;
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
});
afterAll(async () => {
  void db?.close();
  await server?.dispose();
  await stripe?.stop();
});

test("a session priced at 100 credits for $5 grants 100 credits even if the product changed before payment", async () => {
  const { cookie } = await api.signUp(uniqueEmail("rv-price"));
  const r = await api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie });
  const sessionId = new URL(r.body.data.checkout_url).pathname.split("/").pop()!;
  expect(stripe.sessions.get(sessionId)).toBeDefined();

  // The admin re-prices the product: 2,000 credits for $60 under the same id.
  await upsertProduct(db, { product_id: "pack-100", name: "2,000 credits", kind: "pack", credits: 2000, interval: null, amount: 6000, currency: "usd", active: true, sort_order: 10 }, systemClock);

  const res = await stripe.deliver(await stripe.pay(sessionId)); // pays the $5 the session was created with
  for (const x of res) expect(x.status).toBe(200);
  const left = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits;
  expect(left).toBe(SIGNUP + 100);
});
