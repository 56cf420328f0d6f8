/** What a credit buys on the pricing page (app/domain/billing/value.ts): price per credit, ≈ N results, best value. */
import { describe, expect, test } from "bun:test";
import { DEFAULT_PRODUCTS } from "~/domain/billing/products.server";
import { bestValue, creditsBuy, formatPerCredit, pricePerCredit, typicalPrices } from "~/domain/billing/value";

const offer = (product_id: string, amount: number, credits: number, currency = "usd") => ({
  product_id,
  amount,
  credits,
  currency,
});

describe("pricing value", () => {
  test("price per credit in minor units, shown to a tenth of a cent", () => {
    expect(pricePerCredit({ amount: 500, credits: 100 })).toBe(5);
    expect(pricePerCredit({ amount: 100, credits: 0 })).toBe(Number.POSITIVE_INFINITY);
    expect(formatPerCredit(5, "usd")).toBe("$0.050 per credit");
    expect(formatPerCredit(19000 / 7200, "usd")).toBe("$0.026 per credit");
    expect(formatPerCredit(250, "eur")).toBe("€2.50 per credit");
  });

  test("typical prices: the median model of each kind (the lower middle one); none of a kind is null", () => {
    const models = [
      { aiType: "image", credits: 5 },
      { aiType: "image", credits: 3 },
      { aiType: "image", credits: 8 },
      { aiType: "image", credits: 4 },
      { aiType: "video", credits: 40 },
      { aiType: "text", credits: 1 },
    ];
    expect(typicalPrices(models)).toEqual({ image: 4, video: 40 });
    expect(typicalPrices(models.filter((m) => m.aiType !== "video"))).toEqual({ image: 4, video: null });
    expect(creditsBuy(100, { image: 4, video: 40 })).toEqual({ images: 25, videos: 2 });
    expect(creditsBuy(30, { image: 4, video: null })).toEqual({ images: 7, videos: null });
  });

  test("best value: strictly the lowest price per credit, only with a choice in one currency", () => {
    const packs = DEFAULT_PRODUCTS.filter((p) => p.kind === "pack").map((p) => offer(p.id, p.amount, p.credits));
    expect(bestValue(packs)).toBe("pack-2000");
    expect(bestValue([offer("a", 500, 100)])).toBeNull();
    expect(bestValue([offer("a", 500, 100), offer("b", 1000, 200)])).toBeNull();
    expect(bestValue([offer("a", 500, 100), offer("b", 900, 200, "eur")])).toBeNull();
    expect(bestValue([offer("a", 500, 100), offer("b", 900, 200)])).toBe("b");
  });
});
