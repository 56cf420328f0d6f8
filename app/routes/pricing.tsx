import { useTranslation } from "react-i18next";
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
import { bestValue, creditsBuy, formatCreditPrice, pricePerCredit, typicalPrices } from "~/domain/billing/value";
import { offeredModels } from "~/domain/catalog";
import { getCredits, reservedCredits } from "~/domain/credits/ledger.server";
import { getActiveSubscription, toSubscriptionInfo } from "~/domain/subscriptions/subscriptions.server";
import { getServices } from "~/http/services.server";
import { getUiUser, requireUiUser } from "~/http/session.server";
import { iso } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import { getInstance } from "~/lib/i18n.server";
import { formatMoney } from "~/lib/money";
import type { Route } from "./+types/pricing";

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { t, language } = getInstance(context);
  const services = getServices();
  const { db, clock, config } = services;
  const ui = await getUiUser(request);
  const products = (await listProducts(db)).map(toProductInfo);
  // What a credit buys, from the catalog as the admin keeps it (enabled models at today's prices).
  const typical = typicalPrices(offeredModels());
  const offers = products.map((p) => ({
    ...p,
    perCredit: formatCreditPrice(pricePerCredit(p), p.currency, language),
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
    title: t("pricing:title"),
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

export async function action({ request, context }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const services = getServices();
  const form = await request.formData();
  try {
    if (form.get("intent") === "portal") throw redirect(await portalUrl(services, user.id));
    if (form.get("intent") === "cancel-simulated") {
      await cancelSimulatedSubscription(services, user.id);
      return { ok: getInstance(context).t("pricing:canceledSimulated") };
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
  const { t } = useTranslation("pricing");
  return (
    <div className="space-y-6">
      <PageHeader title={t("heading")} description={t("description")} />
      {actionData && "error" in actionData ? <Notice kind="error">{actionData.error}</Notice> : null}
      {actionData && "ok" in actionData ? <Notice kind="success">{actionData.ok}</Notice> : null}
      {need && balance ? <Notice kind="info">{t("needMore", { need, available: balance.available })}</Notice> : null}
      {mode === "simulated" ? <Notice kind="info">{t("simulated")}</Notice> : null}

      {balance ? (
        <Card title={t("balance")} id="balance">
          <dl className="flex flex-wrap gap-x-8 gap-y-4">
            <Stat label={t("available")} value={balance.available} data-testid="pricing-available" />
            <Stat label={t("held")} value={balance.held} />
            <Stat
              label={t("plan")}
              value={subscription ? subscription.product_name : t("standardPlan")}
              data-testid="pricing-plan"
            />
          </dl>
          {subscription?.provider === "stripe" ? (
            <Form method="post" className="mt-4">
              <input type="hidden" name="intent" value="portal" />
              <Button type="submit" variant="secondary" disabled={busy}>
                {t("manage")}
              </Button>
            </Form>
          ) : subscription?.provider === "simulated" ? (
            <Form method="post" className="mt-4">
              <input type="hidden" name="intent" value="cancel-simulated" />
              <Button type="submit" variant="secondary" disabled={busy}>
                {t("cancelSimulated")}
              </Button>
            </Form>
          ) : null}
        </Card>
      ) : null}

      <ProductGrid
        title={t("packs")}
        id="packs-h"
        items={packs}
        best={best.pack}
        signedIn={signedIn}
        busy={busy}
        current={null}
        returnTo={returnTo}
      />
      <ProductGrid
        title={t("subscriptions")}
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
  const { t, i18n } = useTranslation("pricing");
  if (items.length === 0) return null;
  const per = (interval: "month" | "year") => t(`interval.${interval}`);
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
                  {t("bestValue")}
                </Badge>
              ) : null}
            </div>
            <p className="mt-2 text-3xl font-semibold tracking-tight tabular-nums">
              {formatMoney(p.amount, p.currency, i18n.language)}
              {p.interval ? (
                <span className="text-base font-normal text-muted-foreground">
                  {t("perInterval", { interval: per(p.interval) })}
                </span>
              ) : null}
            </p>
            <p className="mt-1 text-sm text-muted-foreground">
              {p.interval
                ? t("creditsEvery", { count: p.credits, interval: per(p.interval) })
                : t("creditsYear", { count: p.credits })}{" "}
              · <span data-testid="per-credit">{t("perCredit", { price: p.perCredit })}</span>
            </p>
            {p.buys.images !== null || p.buys.videos !== null ? (
              <p className="mt-2 text-sm" data-testid="buys">
                ≈{" "}
                {[
                  p.buys.images !== null ? t("images", { count: p.buys.images }) : null,
                  p.buys.videos !== null ? t("videos", { count: p.buys.videos }) : null,
                ]
                  .filter(Boolean)
                  .join(t("or"))}
                <span className="text-muted-foreground">{t("typical")}</span>
              </p>
            ) : null}
            <div className="mt-4 flex-1" />
            {current === p.product_id ? (
              <p className="text-sm font-medium text-success-soft-foreground">{t("current")}</p>
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
                  {p.interval ? t("subscribe", { name: p.name }) : t("buy", { name: p.name })}
                </Button>
              </Form>
            ) : (
              <a
                className={buttonVariants({ variant: "secondary", className: "w-full" })}
                href={`/sign-in?next=${encodeURIComponent("/pricing")}`}
              >
                {t("signInToBuy")}
              </a>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
