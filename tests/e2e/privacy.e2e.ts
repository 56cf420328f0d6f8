/**
 * The account page's "Your data" card and the admin's Suspend button (docs/privacy.md, docs/operating.md
 * "Suspending an account") in chromium: the download is a JSON file with the person's data, a wrong confirmation
 * is refused on the page, the deletion signs out and lands home; an admin suspends and restores a user from the
 * users list. axe-clean; screenshots at 1440×900 and 390×844, light and dark, for looking at (not committed).
 */
import { readFileSync } from "node:fs";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { audit, promote, signUp } from "./support";

const SIZES = [
  ["desktop", { width: 1440, height: 900 }],
  ["phone", { width: 390, height: 844 }],
] as const;

async function shoot(page: Page, part: Locator, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [label, size] of SIZES) {
      await page.setViewportSize(size);
      await audit(page, `${name} (${label}, ${scheme})`);
      await part.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `test-results/e2e/screens/${name}-${label}-${scheme}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(SIZES[0][1]);
}

test("your data: download the archive, a wrong confirmation refused, delete signs out", async ({ page }) => {
  await page.setViewportSize(SIZES[0][1]);
  const email = await signUp(page, { name: "Privacy Pat" });
  await page.goto("/account");
  const card = page.locator("#your-data");
  await expect(card.getByRole("heading", { name: "Your data" })).toBeVisible();
  await shoot(page, card, "account-your-data");

  const download = page.waitForEvent("download");
  await card.getByRole("button", { name: "Download my data" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^atelier-export-\d{4}-\d{2}-\d{2}\.json$/);
  const archive = JSON.parse(readFileSync((await file.path())!, "utf8"));
  expect(archive.profile.email).toBe(email);

  await card.getByLabel(/Type your e-mail/).fill("someone-else@example.test");
  await card.getByLabel("Password").fill("correct-horse-battery");
  await card.getByRole("button", { name: "Delete my account" }).click();
  await expect(page.locator("#your-data").getByText("confirm must be your account's e-mail address")).toBeVisible();

  await page
    .locator("#your-data")
    .getByLabel(/Type your e-mail/)
    .fill(email);
  await page.locator("#your-data").getByLabel("Password").fill("correct-horse-battery");
  await page.locator("#your-data").getByRole("button", { name: "Delete my account" }).click();
  await expect(page.getByText("Your account is deleted and you are signed out.")).toBeVisible();
  await page.goto("/account");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("admin: suspend and restore a user from the users list", async ({ page, browser }) => {
  const memberPage = await (await browser.newContext()).newPage();
  const member = await signUp(memberPage, { name: "Suspect Sam" });
  await page.setViewportSize(SIZES[0][1]);
  const admin = await signUp(page, { name: "Warden Wu" });
  promote(admin);
  await page.goto(`/admin?q=${encodeURIComponent(member)}`);
  const row = page.locator(`[data-user="${member}"]`);
  await shoot(page, page.getByRole("region", { name: /^Users/ }), "admin-user-row");
  await row.getByRole("button", { name: `Suspend ${member}` }).click();
  await expect(page.getByText(`Suspended ${member}`)).toBeVisible();
  await expect(page.locator(`[data-user="${member}"] [data-field="suspended"]`)).toHaveText("suspended");
  await shoot(page, page.getByRole("region", { name: /^Users/ }), "admin-suspended-user");
  // The suspended member's pages are a signed-out visitor's.
  await memberPage.goto("/account");
  await expect(memberPage).toHaveURL(/\/sign-in/);

  await page
    .locator(`[data-user="${member}"]`)
    .getByRole("button", { name: `Restore ${member}` })
    .click();
  await expect(page.getByText(`Restored ${member}`)).toBeVisible();
  await expect(page.locator(`[data-user="${member}"] [data-field="suspended"]`)).toHaveCount(0);
  await memberPage.goto("/account");
  await expect(memberPage).toHaveURL(/\/account$/);
});
