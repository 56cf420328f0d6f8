/**
 * docs/design.md §9 with the simulated checkout (no Stripe key): out of credits in the
 * studio → pricing → buy a pack → the balance rises → the generation goes through.
 */
import { expect, test } from "@playwright/test";
import { auditAndShoot, promote, signUp } from "./support";

test("out of credits in the studio → pricing → buy a pack → back in the studio with the draft → it goes through", async ({
  page,
}) => {
  await signUp(page, { name: "Buyer" });
  await page.goto("/studio");
  // Kling v1.6 video costs 15: marked on its chip, and refused with the way out.
  await page.getByRole("radio", { name: "Video", exact: true }).check();
  await page.getByRole("radio", { name: /Kling v1\.6 video/ }).check();
  await expect(page.getByRole("radio", { name: /Kling v1\.6 video/ })).toHaveAccessibleDescription(
    /not enough credits/,
  );
  await page.getByRole("textbox", { name: "Prompt" }).fill("A lighthouse in a storm");
  await page.getByTestId("options-toggle").click();
  await page.getByLabel("Duration").selectOption("10");
  await page.getByRole("button", { name: /^Generate/ }).click();
  await expect(page.getByTestId("out-of-credits")).toContainText("It costs 15 credits and you have 10 available");

  // The way out leads to pricing.
  await page.getByTestId("out-of-credits").getByRole("link", { name: "Buy credits" }).click();
  await expect(page).toHaveURL(/\/pricing\?need=15&return=studio$/);
  await expect(page.getByTestId("pricing-available")).toHaveText("10");
  await expect(page.getByTestId("pricing-plan")).toHaveText("Standard");
  await auditAndShoot(page, "pricing");

  await page.getByRole("button", { name: "Buy 100 credits" }).click();
  await expect(page).toHaveURL(/\/billing\/simulated\/cs_sim_/);
  await expect(page.getByTestId("simulated-banner")).toContainText("Simulated checkout");
  await auditAndShoot(page, "checkout-simulated");
  await page.getByRole("button", { name: /^Pay \$5\.00 \(simulated\)$/ }).click();

  // Back in the studio (not the account page) with a notice, the new balance, and the draft as it was.
  await expect(page).toHaveURL(/\/studio\?notice=checkout-success$/);
  await expect(page.getByText("Your payment went through")).toBeVisible();
  await expect(page.getByTestId("available")).toContainText("110");
  await expect(page.getByRole("textbox", { name: "Prompt" })).toHaveValue("A lighthouse in a storm");
  await expect(page.getByRole("radio", { name: /Kling v1\.6 video/ })).toBeChecked();
  await page.getByTestId("options-toggle").click();
  await expect(page.getByLabel("Duration")).toHaveValue("10");

  // The generation that did not fit now goes through, from where the person was.
  await page.getByRole("button", { name: /^Generate/ }).click();
  const item = page.getByRole("listitem", { name: "Generation: A lighthouse in a storm" });
  await expect(item).toHaveAttribute("data-status", "completed");
  await expect(page.getByTestId("available")).toContainText("95");
  await page.goto("/account");
  await expect(page.getByTestId("orders")).toContainText("100 credits");
  await auditAndShoot(page, "account-orders");
});

test("the sign-up page acknowledges an invite link", async ({ page, browser }) => {
  await signUp(page, { name: "Inviter Ines" });
  await page.goto("/account");
  const link = await page.getByTestId("invite-link").innerText();
  const other = await browser.newPage();
  await other.goto(link);
  await expect(other.getByText("Inviter Ines invited you to Atelier")).toBeVisible();
  await other.close();
});

test("admin billing: revenue by month, orders, and a product added off sale", async ({ page: buyer, browser }) => {
  test.setTimeout(120_000);
  // A purchase first, so the tables have a row.
  await signUp(buyer, { name: "Buyer Two" });
  await buyer.goto("/pricing");
  await buyer.getByRole("button", { name: "Buy 500 credits" }).click();
  await buyer.getByRole("button", { name: /^Pay \$20\.00 \(simulated\)$/ }).click();
  await expect(buyer.getByTestId("available-credits")).toHaveText("510");

  const page = await (await browser.newContext()).newPage();
  const email = await signUp(page, { name: "Billing Admin" });
  promote(email);
  await page.goto("/admin");
  await page.getByRole("link", { name: "Billing: products, orders, revenue" }).click();
  await expect(page).toHaveURL(/\/admin\/billing$/);
  await expect(page.getByRole("table", { name: "Revenue by month" })).toContainText(
    new Date().toISOString().slice(0, 7),
  );
  await expect(page.getByRole("table", { name: "Recent orders" })).toContainText("500 credits");

  await page.getByLabel("Product ID").fill("pack-e2e");
  await page.getByLabel("Name").fill("E2E pack");
  await page.getByLabel("Credits (per period for plans)").fill("42");
  await page.getByLabel("Price in cents").fill("199");
  await page.getByLabel("On sale").selectOption("false");
  await page.getByRole("button", { name: "Save product" }).click();
  await expect(page.getByText("Saved E2E pack (pack-e2e).")).toBeVisible();
  await expect(page.getByRole("table", { name: "Products" })).toContainText("pack-e2e");
  await auditAndShoot(page, "admin-billing");
  // Off sale: not on the pricing page.
  await page.goto("/pricing");
  await expect(page.getByTestId("product-pack-e2e")).toHaveCount(0);
});
