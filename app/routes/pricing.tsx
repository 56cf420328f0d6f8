import { Form, redirect, useNavigation } from "react-router";
import { Badge, Button, buttonVariants, Card, cardClass, cn, Notice, PageHeader, Stat } from "~/components/ui";
import {
  billingMode,
  cancelSimulatedSubscription,
  portalUrl,
  returnPlaceOf,
  startCheckout,
} from "~/domain/billing/checkout.server";
import { listProducts, toProductInfo } from "~/domain/billing/products.server";
import { bestValue, creditsBuy, formatPerCredit, pricePerCredit, typicalPrices } from "~/domain/billing/value";
import { offeredModels } from "~/domain/catalog";
import { getCredits, reservedCredits } from "~/domain/credits/ledger.server";
import { getActiveSubscription, toSubscriptionInfo } from "~/domain/subscriptions/subscriptions.server";
import { getServices } from "~/http/services.server";
import { getUiUser, requireUiUser } from "~/http/session.server";
import { iso } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import { formatMoney } from "~/lib/money";
import type { Route } from "./+types/pricing";

export const meta: Route.MetaFunction = () => [{ title: "Pricing — Atelier" }];

export async function loader({ request }: Route.LoaderArgs) {
  const services = getServices();
  const { db, clock, config } = services;
  const ui = await getUiUser(request);
  const products = (await listProducts(db)).map(toProductInfo);
  // What a credit buys, from the catalog as the admin keeps it (enabled models at today's prices).
  const typical = typicalPrices(offeredModels());
  const offers = products.map((p) => ({
    ...p,
    perCredit: formatPerCredit(pricePerCredit(p), p.currency),
    buys: creditsBuy(p.credits, typical),
  }));
  const best = {
    pack: bestValue(products.filter((p) => p.kind === "pack")),
    subscription: bestValue(products.filter((p) => p.kind === "subscription")),
  };
  const sub = ui ? await getActiveSubscription(db, ui.user.id, clock) : undefined;
  const balance = ui
    ? await (async () => {
        const left = (await db.exec(getCredits(db, ui.user.id, clock))).left_credits;
        const held = await db.exec(reservedCredits(db, ui.user.id));
        return { available: Math.max(0, left - held), held };
      })()
    : null;
  const need = Number(new URL(request.url).searchParams.get("need") ?? "") || null;
  const returnTo = returnPlaceOf(new URL(request.url).searchParams.get("return"));
  return {
    products: offers,
    best,
    signedIn: Boolean(ui),
    balance,
    need,
    returnTo,
    subscription: sub ? { ...toSubscriptionInfo(sub), period_end: iso(sub.periodEnd), provider: sub.provider } : null,
    mode: billingMode(config),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const services = getServices();
  const form = await request.formData();
  try {
    if (form.get("intent") === "portal") throw redirect(await portalUrl(services, user.id));
    if (form.get("intent") === "cancel-simulated") {
      await cancelSimulatedSubscription(services, user.id);
      return { ok: "Subscription canceled (simulated)." };
    }
    const productId = String(form.get("product_id") ?? "");
    const { checkout_url } = await startCheckout(
      services,
      { id: user.id, email: user.email },
      productId,
      returnPlaceOf(form.get("return")),
    );
    throw redirect(checkout_url);
  } catch (e) {
    if (isAppError(e)) return { error: e.message };
    throw e;
  }
}

export default function Pricing({ loaderData, actionData }: Route.ComponentProps) {
  const { products, best, signedIn, balance, need, subscription, mode, returnTo } = loaderData;
  const busy = useNavigation().state !== "idle";
  const packs = products.filter((p) => p.kind === "pack");
  const plans = products.filter((p) => p.kind === "subscription");
  return (
    <div className="space-y-6">
      <PageHeader
        title="Pricing"
        description="Buy a credit pack (valid for a year) or subscribe for fresh credits every period. Credits are only spent when a generation completes."
      />
      {actionData && "error" in actionData ? <Notice kind="error">{actionData.error}</Notice> : null}
      {actionData && "ok" in actionData ? <Notice kind="success">{actionData.ok}</Notice> : null}
      {need && balance ? (
        <Notice kind="info">
          That generation needs {need} credits and you have {balance.available} available. Top up below to continue.
        </Notice>
      ) : null}
      {mode === "simulated" ? (
        <Notice kind="info">
          Payments are simulated on this server (no Stripe key configured): checkout completes without charging anyone.
        </Notice>
      ) : null}

      {balance ? (
        <Card title="Your balance" id="balance">
          <dl className="flex flex-wrap gap-x-8 gap-y-4">
            <Stat label="Available" value={balance.available} data-testid="pricing-available" />
            <Stat label="Held by running tasks" value={balance.held} />
            <Stat
              label="Plan"
              value={subscription ? subscription.product_name : "Standard"}
              data-testid="pricing-plan"
            />
          </dl>
          {subscription?.provider === "stripe" ? (
            <Form method="post" className="mt-4">
              <input type="hidden" name="intent" value="portal" />
              <Button type="submit" variant="secondary" disabled={busy}>
                Manage subscription
              </Button>
            </Form>
          ) : subscription?.provider === "simulated" ? (
            <Form method="post" className="mt-4">
              <input type="hidden" name="intent" value="cancel-simulated" />
              <Button type="submit" variant="secondary" disabled={busy}>
                Cancel subscription (simulated)
              </Button>
            </Form>
          ) : null}
        </Card>
      ) : null}

      <ProductGrid
        title="Credit packs"
        id="packs-h"
        items={packs}
        best={best.pack}
        signedIn={signedIn}
        busy={busy}
        current={null}
        returnTo={returnTo}
      />
      <ProductGrid
        title="Subscriptions"
        id="plans-h"
        items={plans}
        best={best.subscription}
        signedIn={signedIn}
        busy={busy}
        current={subscription?.product_id ?? null}
        returnTo={returnTo}
      />
    </div>
  );
}

type Item = Route.ComponentProps["loaderData"]["products"][number];

function ProductGrid({
  title,
  id,
  items,
  signedIn,
  busy,
  current,
  returnTo,
  best,
}: {
  returnTo: string;
  best: string | null;
  title: string;
  id: string;
  items: Item[];
  signedIn: boolean;
  busy: boolean;
  current: string | null;
}) {
  if (items.length === 0) return null;
  return (
    <section aria-labelledby={id}>
      <h2 id={id} className="mb-3 text-lg font-semibold tracking-tight">
        {title}
      </h2>
      <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {items.map((p) => (
          <li
            key={p.product_id}
            className={cn(
              cardClass,
              "relative flex flex-col",
              best === p.product_id && "border-primary/60",
              current === p.product_id && "border-primary ring-2 ring-primary/30",
            )}
            data-testid={`product-${p.product_id}`}
          >
            <div className="flex items-start justify-between gap-2">
              <h3 className="font-semibold">{p.name}</h3>
              {best === p.product_id ? (
                <Badge tone="accent" data-testid="best-value">
                  Best value
                </Badge>
              ) : null}
            </div>
            <p className="mt-2 text-3xl font-semibold tracking-tight tabular-nums">
              {formatMoney(p.amount, p.currency)}
              {p.interval ? <span className="text-base font-normal text-muted-foreground"> / {p.interval}</span> : null}
            </p>
            <p className="mt-1 text-sm text-muted-foreground">
              {p.credits.toLocaleString("en")} credits{p.interval ? ` every ${p.interval}` : ", valid 1 year"} ·{" "}
              <span data-testid="per-credit">{p.perCredit}</span>
            </p>
            {p.buys.images !== null || p.buys.videos !== null ? (
              <p className="mt-2 text-sm" data-testid="buys">
                ≈{" "}
                {[
                  p.buys.images !== null ? `${p.buys.images.toLocaleString("en")} images` : null,
                  p.buys.videos !== null ? `${p.buys.videos.toLocaleString("en")} videos` : null,
                ]
                  .filter(Boolean)
                  .join(" or ")}
                <span className="text-muted-foreground"> at typical prices</span>
              </p>
            ) : null}
            <div className="mt-4 flex-1" />
            {current === p.product_id ? (
              <p className="text-sm font-medium text-success-soft-foreground">Your current plan</p>
            ) : signedIn ? (
              <Form method="post">
                <input type="hidden" name="product_id" value={p.product_id} />
                <input type="hidden" name="return" value={returnTo} />
                <Button
                  type="submit"
                  className="w-full"
                  variant={best === p.product_id ? "primary" : "secondary"}
                  disabled={busy}
                >
                  {p.interval ? `Subscribe to ${p.name}` : `Buy ${p.name}`}
                </Button>
              </Form>
            ) : (
              <a
                className={buttonVariants({ variant: "secondary", className: "w-full" })}
                href={`/sign-in?next=${encodeURIComponent("/pricing")}`}
              >
                Sign in to buy
              </a>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
