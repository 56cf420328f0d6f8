/**
 * What a credit buys, for the pricing page (docs/studio.md "Pricing"): the price of one credit, how many images and
 * videos a number of credits makes at the catalog's typical prices, and which offer gives the most credits for the
 * money. Pure and client-safe: the route passes the catalog and the products in.
 */

export interface PricedOffer {
  product_id: string;
  /** Minor units (cents). */
  amount: number;
  credits: number;
  currency: string;
}

/** The price of one credit in minor units (fractional: 500 cents for 120 credits is 4.1667). */
export function pricePerCredit(offer: Pick<PricedOffer, "amount" | "credits">): number {
  return offer.credits > 0 ? offer.amount / offer.credits : Number.POSITIVE_INFINITY;
}

/**
 * The typical price of an image and of a video in credits: the median of the enabled models' prices (the lower
 * middle one for an even count), or null where the catalog offers none of that kind.
 */
export function typicalPrices(models: readonly { aiType: string; credits: number }[]): {
  image: number | null;
  video: number | null;
} {
  const median = (kind: string) => {
    const xs = models
      .filter((m) => m.aiType === kind && m.credits > 0)
      .map((m) => m.credits)
      .sort((a, b) => a - b);
    return xs.length ? xs[Math.floor((xs.length - 1) / 2)]! : null;
  };
  return { image: median("image"), video: median("video") };
}

/** About how many images and videos `credits` make at typical prices (whole results, rounded down). */
export function creditsBuy(credits: number, typical: ReturnType<typeof typicalPrices>) {
  return {
    images: typical.image ? Math.floor(credits / typical.image) : null,
    videos: typical.video ? Math.floor(credits / typical.video) : null,
  };
}

/**
 * The offer with the lowest price per credit among offers in one currency, when there is a choice: two offers at
 * least, and one strictly cheaper per credit than every other (a tie names none).
 */
export function bestValue(offers: readonly PricedOffer[]): string | null {
  if (offers.length < 2 || new Set(offers.map((o) => o.currency.toLowerCase())).size > 1) return null;
  const sorted = [...offers].sort((a, b) => pricePerCredit(a) - pricePerCredit(b));
  const [first, second] = sorted as [PricedOffer, PricedOffer];
  return pricePerCredit(first) < pricePerCredit(second) ? first.product_id : null;
}

/** A price per credit for people: "$0.042 per credit" (three significant decimals below a cent). */
/** What one credit costs, in the visitor's locale (`$0.050`, `0,050 €`): 3 decimals under one unit. */
export function formatCreditPrice(amountPerCredit: number, currency: string, locale = "en"): string {
  const major = amountPerCredit / 100;
  const digits = major >= 1 ? 2 : 3;
  try {
    return new Intl.NumberFormat(locale, {
      style: "currency",
      currency: currency.toUpperCase(),
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(major);
  } catch {
    return `${major.toFixed(digits)} ${currency.toUpperCase()}`;
  }
}

export function formatPerCredit(amountPerCredit: number, currency: string): string {
  const major = amountPerCredit / 100;
  const digits = major >= 1 ? 2 : 3;
  try {
    return `${new Intl.NumberFormat("en", {
      style: "currency",
      currency: currency.toUpperCase(),
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(major)} per credit`;
  } catch {
    return `${major.toFixed(digits)} ${currency.toUpperCase()} per credit`;
  }
}
