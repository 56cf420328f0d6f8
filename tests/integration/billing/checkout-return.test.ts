/**
 * A checkout started from the studio comes back to the studio (where the draft waits in the browser); any other
 * value of `return` comes back to the account page — a fixed list of places, so a crafted pricing link or form
 * cannot send a buyer to another site after paying.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

const it = serverForFile();

const post = (path: string, cookie: string, form: Record<string, string>) =>
  fetch(it.server.url + path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: it.server.url, cookie },
    body: new URLSearchParams(form),
  });

/** Buys a pack through the pricing page's form with `return`, pays or cancels, and answers where it lands. */
async function buyFromPricing(returnTo: string, outcome: "pay" | "cancel") {
  const { cookie } = await it.api.signUp(uniqueEmail("return"));
  const started = await post("/pricing", cookie, { product_id: "pack-100", return: returnTo });
  expect(started.status).toBe(302);
  const checkout = new URL(started.headers.get("location")!, it.server.url);
  expect(checkout.pathname).toStartWith("/billing/simulated/");
  const page = await (await fetch(checkout, { headers: { cookie } })).text();
  const back = /name="return" value="([^"]*)"/.exec(page)?.[1];
  const done = await post(checkout.pathname, cookie, {
    token: checkout.searchParams.get("token")!,
    outcome,
    ...(back ? { return: back } : {}),
  });
  return { location: done.headers.get("location"), checkoutUrl: checkout, formReturn: back };
}

test("from the studio: paid or canceled, back to the studio with the notice", async () => {
  expect((await buyFromPricing("studio", "pay")).location).toBe("/studio?notice=checkout-success");
  expect((await buyFromPricing("studio", "cancel")).location).toBe("/studio?notice=checkout-canceled");
});

test("anything else goes back to the account page, never to an address from the request", async () => {
  for (const value of ["", "account", "https://evil.example/", "//evil.example", "/studio", "STUDIO"]) {
    const r = await buyFromPricing(value, "pay");
    expect({ value, location: r.location }).toEqual({ value, location: "/account?notice=checkout-success" });
    expect(r.checkoutUrl.searchParams.get("return")).toBeNull();
  }
  // A forged field on the simulated checkout's own form is read the same way.
  const { cookie } = await it.api.signUp(uniqueEmail("return-forged"));
  const url = new URL(
    (await it.api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie })).body.data.checkout_url,
  );
  const forged = await post(url.pathname, cookie, {
    token: url.searchParams.get("token")!,
    outcome: "pay",
    return: "https://evil.example/",
  });
  expect(forged.headers.get("location")).toBe("/account?notice=checkout-success");
});

test("the API's checkout is unchanged: its URL carries no return and lands on the account page", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("return-api"));
  const r = await it.api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie });
  const url = new URL(r.body.data.checkout_url);
  expect(url.searchParams.get("return")).toBeNull();
  const done = await post(url.pathname, cookie, { token: url.searchParams.get("token")!, outcome: "pay" });
  expect(done.headers.get("location")).toBe("/account?notice=checkout-success");
});
