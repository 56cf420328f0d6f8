import { expect, type Page, test } from "@playwright/test";

const unique = (tag: string) =>
  `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.test`;

async function signUp(page: Page, name: string) {
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Email").fill(unique("acct"));
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/studio$/);
  await page.goto("/account");
}

test("user center: check in, toggle affiliate, send feedback", async ({ page }) => {
  await signUp(page, "Ledger Lee");
  await expect(page.getByTestId("available-credits")).toHaveText("10");
  await expect(page.getByTestId("total-credits")).toHaveText("10");
  await expect(page.getByText("10 credits")).toBeVisible();
  await expect(page.getByRole("list", { name: "Credit grants" })).toContainText("Sign-up bonus");
  await expect(page.getByTestId("subscription")).toContainText("No active subscription");

  // Check in: 10 → 11, then a second click says already checked in and adds nothing.
  await expect(page.getByTestId("checkin-state")).toContainText("Not checked in today");
  await page.getByRole("button", { name: "Daily check-in" }).click();
  await expect(page.getByRole("status").filter({ hasText: "1 credit added" })).toBeVisible();
  await expect(page.getByTestId("available-credits")).toHaveText("11");
  await expect(page.getByText("11 credits")).toBeVisible();
  await expect(page.getByTestId("checkin-state")).toContainText("Checked in today");
  await expect(page.getByRole("list", { name: "Credit grants" })).toContainText("Daily check-in");
  // Done for today: no button any more, and when the next one opens.
  await expect(page.getByRole("button", { name: "Daily check-in" })).toHaveCount(0);
  await expect(page.getByTestId("checkin-state")).toContainText(
    /next check-in opens at 00:00 UTC, in \d+ (h \d+ )?min/,
  );

  // The invite link can be copied.
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.getByRole("button", { name: "Copy link" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/\/sign-up\?ref=[A-Z2-9]{8}$/);

  // Affiliate switch on and off again.
  const sw = page.getByRole("switch", { name: "Affiliate program" });
  await expect(sw).toHaveAttribute("aria-checked", "false");
  await sw.click();
  await expect(page.getByRole("switch", { name: "Affiliate program" })).toHaveAttribute("aria-checked", "true");
  await expect(page.getByTestId("affiliate-state")).toHaveText("(on)");
  await expect(page.getByText(/\/sign-up\?ref=[A-Z2-9]{8}/)).toBeVisible();
  await page.getByRole("switch", { name: "Affiliate program" }).click();
  await expect(page.getByRole("switch", { name: "Affiliate program" })).toHaveAttribute("aria-checked", "false");
  await expect(page.getByTestId("affiliate-state")).toHaveText("(off)");

  // Feedback: errors from the shared schema, then a successful send.
  await page.getByRole("link", { name: "Feedback", exact: true }).first().click();
  await expect(page).toHaveURL(/\/feedback$/);
  await page.getByRole("button", { name: "Send feedback" }).click();
  await expect(page.getByText("Tell us what you think — a sentence is enough.")).toBeVisible();
  await expect(page.getByText("Choose a rating from 1 to 5 stars.")).toBeVisible();
  await page.getByLabel("Your feedback").fill("The fox pictures are great.");
  await page.getByLabel("4 stars").check();
  await page.getByRole("button", { name: "Send feedback" }).click();
  await expect(page.getByText("Thank you! Your feedback was received.")).toBeVisible();
  await expect(page.getByLabel("Your feedback")).toHaveValue("");
});

test("check-in and feedback work without JavaScript", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await signUp(page, "No Script");
  await page.getByRole("button", { name: "Daily check-in" }).click();
  await expect(page.getByTestId("available-credits")).toHaveText("11");
  await expect(page.getByTestId("checkin-state")).toContainText("Checked in today");
  await page.getByRole("switch", { name: "Affiliate program" }).click();
  await expect(page.getByTestId("affiliate-state")).toHaveText("(on)");
  await page.goto("/feedback");
  await page.getByLabel("Your feedback").fill("works without JS");
  await page.getByLabel("5 stars").check();
  await page.getByRole("button", { name: "Send feedback" }).click();
  await expect(page.getByText("Thank you! Your feedback was received.")).toBeVisible();
  await context.close();
});

test("the feedback page requires a session", async ({ page }) => {
  await page.goto("/feedback");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Ffeedback$/);
});
