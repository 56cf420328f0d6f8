/**
 * Enhance prompt (docs/studio.md "Enhance prompt"): the rewrite of the simulated text model, how an answer becomes a
 * prompt, what may be enhanced, and the charge: nothing when simulated, the text catalog price when live, given back
 * when the upstream fails.
 */
import { describe, expect, test } from "bun:test";
import { MockLanguageModelV4 } from "ai/test";
import { openDatabase } from "#db/client";
import { balanceOf, grantCredits } from "~/domain/credits/ledger.server";
import { DEMO_TEXT_CREDITS } from "~/domain/demo/catalog";
import { createDemoModels, type DemoModels } from "~/domain/demo/models.server";
import { cleanEnhanced, ENHANCE_MAX_INPUT, ENHANCED_MAX, simulatedEnhancement } from "~/domain/studio/enhance";
import { enhanceOffer, enhancePrompt } from "~/domain/studio/enhance.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { createUserSync } from "../../support/fixtures";

async function setup(env: Record<string, string> = {}, credits = 10) {
  const db = openDatabase(":memory:");
  const clock = manualClock();
  const userId = crypto.randomUUID();
  createUserSync(db, { id: userId, at: clock.now(), email: `${userId}@x.test` });
  if (credits > 0) await db.exec(grantCredits(db, { userId, amount: credits, source: "admin" }, clock));
  const config = parseConfig({ DATA_DIR: "/tmp", ...env });
  const available = async () => (await db.exec(balanceOf(db, userId, clock))).available;
  return { db, clock, userId, config, available };
}

const reply = (text: string) =>
  new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text", text }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 9, text: 9, reasoning: 0 },
      },
      warnings: [],
    }),
  });

describe("enhance prompt", () => {
  test("an answer becomes one clean prompt within the generation limit", () => {
    expect(cleanEnhanced('  Prompt: "A fox in snow,\n soft light"  ')).toBe("A fox in snow, soft light");
    expect(cleanEnhanced("“A quiet harbour at dawn”")).toBe("A quiet harbour at dawn");
    expect(cleanEnhanced("x".repeat(5000))).toHaveLength(ENHANCED_MAX);
    expect(simulatedEnhancement("A fox in snow.")).toStartWith("A fox in snow, ");
    expect(simulatedEnhancement("A fox in snow")).toBe(simulatedEnhancement("A fox in snow"));
  });

  test("simulated by default: the rewrite keeps the prompt and adds detail; nothing is charged", async () => {
    const { db, clock, userId, config, available } = await setup();
    expect(enhanceOffer(config)).toEqual({ credits: 0, mode: "simulated" });
    const r = await enhancePrompt(
      { db, clock, config, models: createDemoModels(config) },
      { userId, prompt: "a red fox in fresh snow" },
    );
    expect(r.mode).toBe("simulated");
    expect(r.prompt).toBe(simulatedEnhancement("a red fox in fresh snow"));
    expect(r.prompt.length).toBeGreaterThan("a red fox in fresh snow".length + 40);
    expect(await available()).toBe(10);
  });

  test("nothing to enhance, or a prompt detailed already, is refused with a reason", async () => {
    const { db, clock, userId, config } = await setup();
    const deps = { db, clock, config, models: createDemoModels(config) };
    await expect(enhancePrompt(deps, { userId, prompt: "   " })).rejects.toThrow(/write a few words/);
    await expect(enhancePrompt(deps, { userId, prompt: "x".repeat(ENHANCE_MAX_INPUT + 1) })).rejects.toThrow(
      /too long to enhance/,
    );
  });

  test("live: charged the text catalog price; given back when the upstream fails; refused without the credits", async () => {
    const { db, clock, userId, config, available } = await setup({ OPENAI_API_KEY: "sk-test" });
    expect(enhanceOffer(config)).toEqual({ credits: DEMO_TEXT_CREDITS, mode: "live" });
    let model = reply("Enhanced: a red fox");
    const models: DemoModels = { ...createDemoModels(config), text: () => ({ model, mode: "live" }) };
    const r = await enhancePrompt({ db, clock, config, models }, { userId, prompt: "a red fox" });
    expect(r).toMatchObject({ prompt: "Enhanced: a red fox", mode: "live", provider: "openai" });
    expect(await available()).toBe(10 - DEMO_TEXT_CREDITS);
    model = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error("upstream down");
      },
    });
    await expect(enhancePrompt({ db, clock, config, models }, { userId, prompt: "a red fox" })).rejects.toThrow();
    expect(await available()).toBe(10 - DEMO_TEXT_CREDITS);
    const poor = await setup({ OPENAI_API_KEY: "sk-test" }, 0);
    await expect(
      enhancePrompt(
        { ...poor, models: { ...models, text: () => ({ model: reply("x"), mode: "live" }) } },
        {
          userId: poor.userId,
          prompt: "a red fox",
        },
      ),
    ).rejects.toThrow(/insufficient credits/);
  });
});
