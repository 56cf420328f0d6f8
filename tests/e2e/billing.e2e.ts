/**
 * DESIGN §9 with the simulated checkout (no Stripe key): out of credits in the
 * studio → pricing → buy a pack → the balance rises → the generation goes through.
 */
import { expect, test } from "@playwright/test";
import { auditAndShoot, signUp } from "./support";

test("out of credits in the studio → pricing → buy a pack → the generation goes through", async ({ page }) => {
  await signUp(page, { name: "Buyer" });
  await page.goto("/studio");
  const picker = page.getByLabel("Type, provider and model");
  const video = "Kling v1.6 video — kling / kling-v1-6 — 15 credits (simulated)";
  await picker.selectOption({ label: video });
  await page.getByLabel("Prompt").fill("A lighthouse in a storm");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByRole("alert")).toHaveText("insufficient credits: need 15, have 10");

  // The way out leads to pricing.
  await page.getByTestId("out-of-credits").getByRole("link", { name: "Buy credits" }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByTestId("pricing-available")).toHaveText("10");
  await expect(page.getByTestId("pricing-plan")).toHaveText("Standard");
  await auditAndShoot(page, "pricing");

  await page.getByRole("button", { name: "Buy 100 credits" }).click();
  await expect(page).toHaveURL(/\/billing\/simulated\/cs_sim_/);
  await expect(page.getByTestId("simulated-banner")).toContainText("Simulated checkout");
  await auditAndShoot(page, "checkout-simulated");
  await page.getByRole("button", { name: /^Pay \$5\.00 \(simulated\)$/ }).click();

  // Back on the account page with a notice; the balance rose by the pack.
  await expect(page).toHaveURL(/\/account\?notice=checkout-success$/);
  await expect(page.getByText("Your payment went through")).toBeVisible();
  await expect(page.getByTestId("left-credits")).toHaveText("110");
  await expect(page.getByTestId("orders")).toContainText("100 credits");
  await auditAndShoot(page, "account-orders");

  // The generation that did not fit now goes through.
  await page.goto("/studio");
  await page.getByLabel("Type, provider and model").selectOption({ label: video });
  await page.getByLabel("Prompt").fill("A lighthouse in a storm");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page).toHaveURL(/\/studio\?created=/);
  const item = page.getByRole("listitem", { name: "Generation: A lighthouse in a storm" });
  await expect(item.getByTestId("status")).toHaveText("completed");
  await expect(page.getByTestId("available")).toContainText("95");
});

test("the sign-up page acknowledges an invite link", async ({ page, browser }) => {
  await signUp(page, { name: "Inviter Ines" });
  const link = await page.locator("code", { hasText: "/sign-up?ref=" }).innerText();
  const other = await browser.newPage();
  await other.goto(link);
  await expect(other.getByText("Inviter Ines invited you to Atelier")).toBeVisible();
  await other.close();
});
