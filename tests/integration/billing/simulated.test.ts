/**
 * docs/design.md §9: with no STRIPE_SECRET_KEY, checkout_url opens Atelier's own simulated checkout page, which
 * completes through the webhook's fulfilment. Opening the page (GET) changes nothing; completing needs a POST by the
 * checkout's owner carrying its per-checkout form token, and only while Stripe is not configured.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { type StripeFake, startStripeFake } from "../../fakes/stripe";
import { Client, uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { runAdmin } from "../../support/fixtures";
import { startServer, type TestServer } from "../../support/server";

setDefaultTimeout(60_000);

const s = serverForFile();

const signUp = async (tag: string) => s.api.signUp(uniqueEmail(tag));
const balance = async (cookie: string) =>
  (await s.api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;
const post = (url: string, cookie: string | undefined, form: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: s.server.url,
      ...(cookie ? { cookie } : {}),
    },
    body: new URLSearchParams(form),
  });

describe("simulated checkout", () => {
  test("a pack: GET shows a clearly simulated page and changes nothing; the owner's POST with the token pays once", async () => {
    const u = await signUp("sim");
    const r = await s.api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie: u.cookie });
    const url = new URL(r.body.data.checkout_url);
    expect(url.origin).toBe(s.server.url);
    expect(url.pathname).toStartWith("/billing/simulated/");
    const token = url.searchParams.get("token")!;
    expect(token.length).toBeGreaterThan(20);

    const page = await fetch(url, { headers: { cookie: u.cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Simulated checkout");
    expect(await balance(u.cookie)).toBe(10);

    const action = `${url.origin}${url.pathname}`;
    // Another user, even with the token: refused.
    const other = await signUp("sim-other");
    expect((await post(action, other.cookie, { token, outcome: "pay" })).status).toBe(403);
    // The owner without the token (a cross-site form cannot know it): refused.
    expect((await post(action, u.cookie, { token: "", outcome: "pay" })).status).toBe(403);
    expect((await post(action, u.cookie, { token: `${token.slice(1)}A`, outcome: "pay" })).status).toBe(403);
    // Signed out: sent to sign in.
    expect((await post(action, undefined, { token, outcome: "pay" })).status).toBe(302);
    expect(await balance(u.cookie)).toBe(10);

    const paid = await post(action, u.cookie, { token, outcome: "pay" });
    expect(paid.status).toBe(302);
    expect(paid.headers.get("location")).toBe("/account?notice=checkout-success");
    expect(await balance(u.cookie)).toBe(110);
    // Submitted twice: paid once.
    await post(action, u.cookie, { token, outcome: "pay" });
    expect(await balance(u.cookie)).toBe(110);
    expect(await balance(other.cookie)).toBe(10);
  });

  test("cancel returns to the account page with a notice and grants nothing", async () => {
    const u = await signUp("sim-cancel");
    const url = new URL(
      (await s.api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie: u.cookie })).body.data
        .checkout_url,
    );
    const res = await post(`${url.origin}${url.pathname}`, u.cookie, {
      token: url.searchParams.get("token")!,
      outcome: "cancel",
    });
    expect(res.headers.get("location")).toBe("/account?notice=checkout-canceled");
    // A canceled (or expired) checkout cannot be paid afterwards, and the buyer is not told it succeeded.
    const late = await post(`${url.origin}${url.pathname}`, u.cookie, {
      token: url.searchParams.get("token")!,
      outcome: "pay",
    });
    expect(late.headers.get("location")).toBe("/account?notice=checkout-canceled");
    expect(await balance(u.cookie)).toBe(10);
  });

  test("a plan makes the user a subscriber with the period's credits", async () => {
    const u = await signUp("sim-plan");
    const url = new URL(
      (await s.api.post("/api/billing/checkout", { product_id: "pro-monthly" }, { cookie: u.cookie })).body.data
        .checkout_url,
    );
    await post(`${url.origin}${url.pathname}`, u.cookie, { token: url.searchParams.get("token")!, outcome: "pay" });
    expect(await balance(u.cookie)).toBe(610);
    const sub = (await s.api.post("/api/get-user-subscription", undefined, { cookie: u.cookie })).body.data;
    expect(sub).toMatchObject({ product_id: "pro-monthly", interval: "month", amount: 1900, status: "paid" });
    // No Stripe portal here: the pricing page cancels a simulated subscription; the credits stay.
    const canceled = await post(`${s.server.url}/pricing`, u.cookie, { intent: "cancel-simulated" });
    expect(canceled.status).toBe(200);
    expect((await s.api.post("/api/get-user-subscription", undefined, { cookie: u.cookie })).body.data).toBeNull();
    expect(await balance(u.cookie)).toBe(610);
  });
});

describe("products are editable with the admin CLI", () => {
  const cli = (...args: string[]) => runAdmin(s.server, args, { LOG_LEVEL: "error" });

  test("set-product adds and changes a product; --active false takes it off sale; bad input exits 1", async () => {
    const added = await cli(
      "set-product",
      "--product-id",
      "pack-50",
      "--name",
      "50 credits",
      "--kind",
      "pack",
      "--credits",
      "50",
      "--amount",
      "300",
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("saved pack-50");
    let list = (await s.api.post("/api/billing/products")).body.data.products;
    expect(list.find((p: any) => p.product_id === "pack-50")).toEqual({
      product_id: "pack-50",
      name: "50 credits",
      kind: "pack",
      credits: 50,
      interval: null,
      amount: 300,
      currency: "usd",
    });

    expect(
      (
        await cli(
          "set-product",
          "--product-id",
          "pack-50",
          "--name",
          "50 credits",
          "--kind",
          "pack",
          "--credits",
          "50",
          "--amount",
          "300",
          "--active",
          "false",
        )
      ).code,
    ).toBe(0);
    list = (await s.api.post("/api/billing/products")).body.data.products;
    expect(list.find((p: any) => p.product_id === "pack-50")).toBeUndefined();
    const u = await signUp("off-sale");
    expect(
      (await s.api.post("/api/billing/checkout", { product_id: "pack-50" }, { cookie: u.cookie })).body.message,
    ).toBe("product not found");

    const bad = await cli(
      "set-product",
      "--product-id",
      "plan-x",
      "--name",
      "X",
      "--kind",
      "subscription",
      "--credits",
      "5",
      "--amount",
      "900",
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("interval (month or year) is required for a subscription");
    const listed = await cli("list-products");
    expect(listed.stdout).toContain("pro-monthly");
    expect(listed.stdout).toContain("off sale");
  }, 60_000);
});

/**
 * The simulated checkout hands out credits for free, so it exists only while no STRIPE_SECRET_KEY is set
 * (docs/design.md §9): a simulated checkout started before the operator configured Stripe (open for 24 h) cannot be
 * paid once Stripe is on, or a buyer could hoard them and collect free credits once real payments are on.
 */
describe("a simulated checkout started before Stripe was configured", () => {
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
});
