import { expect, type Page, test } from "@playwright/test";
import { auditAndShoot, unique } from "./support";

async function signUp(page: Page, name: string) {
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Email").fill(unique("play"));
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/studio$/);
  await page.goto("/account");
}

test("the playground streams text live: the output grows chunk by chunk", async ({ page }) => {
  await signUp(page, "Streamer");
  await page.getByRole("link", { name: "Playground" }).click();
  await expect(page).toHaveURL(/\/playground$/);
  await expect(page.getByRole("heading", { name: "Playground", level: 1 })).toBeVisible();

  await page.getByLabel("Model", { exact: true }).selectOption("openrouter:openai/gpt-4o-mini");
  await page.locator("#text-prompt").fill("a walk along the harbour at night");
  const output = page.getByTestId("text-output");
  await page.getByRole("button", { name: "Generate text" }).click();

  // Sample the visible text while it streams: it must grow through several distinct lengths.
  const lengths: number[] = [];
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const text = (await output.textContent()) ?? "";
    if (lengths.at(-1) !== text.length) lengths.push(text.length);
    if ((await output.getAttribute("aria-busy")) === "false" && text.length > 0) break;
    await page.waitForTimeout(30);
  }
  const grew = lengths.filter((n) => n > 0);
  expect(grew.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < grew.length; i++) expect(grew[i]!).toBeGreaterThan(grew[i - 1]!);
  await expect(output).toContainText('"a walk along the harbour at night"');
  await expect(output).toContainText("simulated openai/gpt-4o-mini model of openrouter");
  expect(Number(await output.getAttribute("data-chunks"))).toBeGreaterThan(5);
  await expect(page.getByRole("button", { name: "Generate text" })).toBeEnabled();
  await auditAndShoot(page, "playground");
});

test("the playground validates with the shared schema and keeps the text of a stream that breaks", async ({ page }) => {
  await signUp(page, "Errors");
  await page.goto("/playground");
  await page.getByRole("button", { name: "Generate text" }).click();
  await expect(page.getByText("Enter a prompt")).toBeVisible();
  await page.locator("#text-prompt").fill("this will fail [simulate:fail]");
  await page.getByRole("button", { name: "Generate text" }).click();
  // The simulated stream breaks after a few words; what arrived stays visible.
  await expect(page.getByTestId("text-output")).not.toBeEmpty();
  await expect(page.getByRole("button", { name: "Generate text" })).toBeEnabled();
});

test("without JavaScript the text form posts and shows the whole reply", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await signUp(page, "No Script");
  await page.goto("/playground");
  await page.getByLabel("Model", { exact: true }).selectOption("deepseek:deepseek-chat");
  await page.locator("#text-prompt").fill("an old map of the city");
  await page.getByRole("button", { name: "Generate text" }).click();
  const output = page.getByTestId("text-output");
  await expect(output).toContainText('"an old map of the city"');
  await expect(output).toContainText("simulated deepseek-chat model of deepseek");
  // The form keeps what was sent.
  await expect(page.locator("#text-prompt")).toHaveValue("an old map of the city");

  // The image section posts too and shows the stored (simulated) image.
  await page.locator("#image-prompt").fill("a lantern in the fog");
  await page.getByRole("button", { name: "Generate image" }).click();
  const img = page.getByRole("img", { name: "Generated: a lantern in the fog" });
  await expect(img).toBeVisible();
  expect(await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
  await context.close();
});
