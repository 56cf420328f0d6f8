import { data, Form, redirect, useNavigation } from "react-router";
import { Notice, PageHeader } from "~/components/ui";
import { finishSimulatedCheckout, getSimulatedCheckout, returnUrls } from "~/domain/billing/checkout.server";
import { isAppError } from "~/lib/errors";
import { formatMoney } from "~/lib/money";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
import type { Route } from "./+types/billing-simulated";

export const meta: Route.MetaFunction = () => [{ title: "Simulated checkout — Atelier" }];

// DESIGN §9: with no Stripe key, checkout_url opens this page. Opening it (GET) changes nothing;
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
    status = (await finishSimulatedCheckout(services, { id: params.checkoutId, userId: user.id, token: String(form.get("token") ?? ""), outcome })).status;
  } catch (e) {
    if (isAppError(e)) throw data(e.message, { status: 403 });
    throw e;
  }
  const urls = returnUrls(services.config.publicUrl);
  const to = new URL(status === "completed" ? urls.successUrl : urls.cancelUrl);
  return redirect(to.pathname + to.search);
}

export default function SimulatedCheckout({ loaderData }: Route.ComponentProps) {
  const { id, status, token, product } = loaderData;
  const busy = useNavigation().state !== "idle";
  return (
    <div className="mx-auto max-w-lg space-y-6">
      <PageHeader title="Checkout" />
      <div className="rounded-md border-2 border-dashed border-border bg-warning-soft px-4 py-3 text-sm text-warning-soft-foreground" role="note" data-testid="simulated-banner">
        <strong>Simulated checkout.</strong> This server has no Stripe key: no card is asked for and no money moves. Paying here runs the
        same fulfilment as a real Stripe payment.
      </div>
      <section className="card" aria-labelledby="order-h">
        <h2 id="order-h" className="text-lg font-semibold">
          {product.name}
        </h2>
        <p className="mt-2 text-3xl font-semibold">
          {product.price}
          {product.interval ? <span className="text-base font-normal text-muted-foreground"> / {product.interval}</span> : null}
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
              <input type="hidden" name="outcome" value="pay" />
              <button type="submit" className="btn-primary" disabled={busy} data-checkout={id}>
                Pay {product.price} (simulated)
              </button>
            </Form>
            <Form method="post">
              <input type="hidden" name="token" value={token} />
              <input type="hidden" name="outcome" value="cancel" />
              <button type="submit" className="btn-secondary" disabled={busy}>
                Cancel
              </button>
            </Form>
          </div>
        )}
      </section>
    </div>
  );
}
