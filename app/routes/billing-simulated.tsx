import { data, Form, redirect, useNavigation } from "react-router";
import { Button, Card, Notice, PageHeader } from "~/components/ui";
import {
  finishSimulatedCheckout,
  getSimulatedCheckout,
  returnPlaceOf,
  returnUrls,
} from "~/domain/billing/checkout.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import { formatMoney } from "~/lib/money";
import type { Route } from "./+types/billing-simulated";

export const meta: Route.MetaFunction = () => [{ title: "Simulated checkout — Atelier" }];

// docs/design.md §9: with no Stripe key, checkout_url opens this page. Opening it (GET) changes nothing;
// only a POST by the checkout's owner carrying its form token completes or cancels it.
export async function loader({ request, params }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const view = await getSimulatedCheckout(getServices().db, params.checkoutId, user.id);
  if (!view) throw data("Checkout not found", { status: 404 });
  const p = view.product;
  return {
    id: view.id,
    status: view.status,
    token: new URL(request.url).searchParams.get("token") ?? "",
    returnTo: returnPlaceOf(new URL(request.url).searchParams.get("return")),
    product: { name: p.name, credits: p.credits, interval: p.interval, price: formatMoney(p.amount, p.currency) },
  };
}

export async function action({ request, params }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const services = getServices();
  const form = await request.formData();
  const outcome = form.get("outcome") === "pay" ? "pay" : "cancel";
  let status: "completed" | "canceled";
  try {
    status = (
      await finishSimulatedCheckout(services, {
        id: params.checkoutId,
        userId: user.id,
        token: String(form.get("token") ?? ""),
        outcome,
      })
    ).status;
  } catch (e) {
    if (isAppError(e)) throw data(e.message, { status: 403 });
    throw e;
  }
  const urls = returnUrls(services.config.publicUrl, returnPlaceOf(form.get("return")));
  const to = new URL(status === "completed" ? urls.successUrl : urls.cancelUrl);
  return redirect(to.pathname + to.search);
}

export default function SimulatedCheckout({ loaderData }: Route.ComponentProps) {
  const { id, status, token, product, returnTo } = loaderData;
  const busy = useNavigation().state !== "idle";
  return (
    <div className="mx-auto max-w-lg space-y-6">
      <PageHeader title="Checkout" />
      <div
        className="rounded-2xl border-2 border-dashed border-border bg-warning-soft px-4 py-3 text-sm text-warning-soft-foreground"
        role="note"
        data-testid="simulated-banner"
      >
        <strong>Simulated checkout.</strong> This server has no Stripe key: no card is asked for and no money moves.
        Paying here runs the same fulfilment as a real Stripe payment.
      </div>
      <Card title={product.name} id="order">
        <p className="text-3xl font-semibold tracking-tight tabular-nums">
          {product.price}
          {product.interval ? (
            <span className="text-base font-normal text-muted-foreground"> / {product.interval}</span>
          ) : null}
        </p>
        <p className="mt-1 text-sm text-muted-foreground">
          {product.credits.toLocaleString("en")} credits{product.interval ? ` every ${product.interval}` : ""}
        </p>
        {status !== "open" ? (
          <div className="mt-4">
            <Notice kind="info">This checkout is already {status}.</Notice>
          </div>
        ) : (
          <div className="mt-6 flex flex-wrap gap-3">
            <Form method="post">
              <input type="hidden" name="token" value={token} />
              <input type="hidden" name="return" value={returnTo} />
              <input type="hidden" name="outcome" value="pay" />
              <Button type="submit" disabled={busy} data-checkout={id}>
                Pay {product.price} (simulated)
              </Button>
            </Form>
            <Form method="post">
              <input type="hidden" name="token" value={token} />
              <input type="hidden" name="return" value={returnTo} />
              <input type="hidden" name="outcome" value="cancel" />
              <Button type="submit" variant="secondary" disabled={busy}>
                Cancel
              </Button>
            </Form>
          </div>
        )}
      </Card>
    </div>
  );
}
