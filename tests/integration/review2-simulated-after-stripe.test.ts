/**
 * review2: the simulated checkout hands out credits for free, so it exists only
 * while no STRIPE_SECRET_KEY is set (docs/design.md §9). Its completion did not check
 * that: a simulated checkout started before the operator configured Stripe
 * (open for 24 h) could still be "paid" afterwards — a buyer could hoard them
 * (10 an hour) and collect free credits once real payments are on.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { type StripeFake, startStripeFake } from "../fakes/stripe";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";

setDefaultTimeout(60_000);

let first: TestServer | undefined;
let second: TestServer | undefined;
let stripe: StripeFake | undefined;
afterAll(async () => {
  await first?.stop();
  await second?.dispose();
  await stripe?.stop();
  if (first) rmSync(first.dataDir, { recursive: true, force: true });
});

test("a simulated checkout started before Stripe was configured cannot be paid once Stripe is on", async () => {
  first = await startServer();
  const api = new Client(first.url);
  const { cookie } = await api.signUp(uniqueEmail("hoard"));
  const url = new URL(
    (await api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie })).body.data.checkout_url,
  );
  expect(url.pathname).toStartWith("/billing/simulated/");
  const token = url.searchParams.get("token")!;
  const { port, dataDir } = first;
  await first.stop();

  // The operator turns real payments on (same data, same address).
  stripe = startStripeFake();
  second = await startServer({ port, dataDir, env: stripe.env });
  const paid = await fetch(`${second.url}${url.pathname}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: second.url, cookie },
    body: new URLSearchParams({ token, outcome: "pay" }),
  });
  await paid.arrayBuffer();
  expect((await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits).toBe(10); // SIGNUP_CREDITS only
  expect(paid.status).not.toBe(302);
});
