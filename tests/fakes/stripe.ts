/**
 * A fake of the Stripe API that the official `stripe` SDK talks to (through
 * STRIPE_API_URL → its host/port/protocol options): Checkout Sessions,
 * customers, subscriptions, invoice payments and the customer portal, with
 * form-encoded bodies and Bearer auth as upstream. Stripe's side of a
 * purchase (the buyer paying, a renewal, a refund, a cancellation) is driven
 * by the test through the methods below, which answer the events Stripe would
 * send, signed with the SDK's own `generateTestHeaderStringAsync`.
 *
 * Object shapes follow the API version of the installed SDK (2026-10-28):
 * an invoice names its subscription under `parent.subscription_details`, a
 * subscription's period is on its items, a charge names its PaymentIntent.
 */
import Stripe from "stripe";
import { FakeState, fakeId, json, type RunningFake, startFake } from "./common";

type Obj = Record<string, any>;

export interface SignedEvent {
  event: Obj;
  payload: string;
  signature: string;
}

export interface StripeFake extends RunningFake {
  secretKey: string;
  webhookSecret: string;
  /** Env that points Atelier at this fake. */
  env: Record<string, string>;
  sessions: Map<string, Obj>;
  subscriptions: Map<string, Obj>;
  invoices: Map<string, Obj>;
  customers: Map<string, Obj>;
  /** Where `deliver` posts (and the fake's pay page delivers): Atelier's webhook URL. */
  webhookUrl?: string;
  /** The buyer pays: the events Stripe sends (subscription: created, invoice.paid, then checkout.session.completed). */
  pay(sessionId: string): Promise<SignedEvent[]>;
  /** The next period of a subscription is paid. */
  renew(subscriptionId: string): Promise<SignedEvent[]>;
  /** Refunds (part of) the charge of a PaymentIntent; `amount` defaults to what is left. */
  refund(paymentIntent: string, amount?: number): Promise<SignedEvent[]>;
  /** The subscription ends now (customer.subscription.deleted). */
  cancel(subscriptionId: string): Promise<SignedEvent[]>;
  /** The card holder disputes what is left of a charge (charge.dispute.created). */
  dispute(paymentIntent: string): Promise<SignedEvent[]>;
  /** An unpaid Checkout Session expires (checkout.session.expired). */
  expire(sessionId: string): Promise<SignedEvent[]>;
  /** The PaymentIntent that paid an invoice or a (payment mode) Checkout Session. */
  paymentIntentOf(invoiceOrSessionId: string): string;
  /** Signs any event object as Stripe would. */
  sign(event: Obj): Promise<SignedEvent>;
  /** Posts signed events to `webhookUrl` one after the other; answers the responses. */
  deliver(events: SignedEvent[], url?: string): Promise<Response[]>;
}

/** `a[b][0][c]=1` form bodies (what the SDK sends) → nested objects. */
export function parseForm(text: string): Obj {
  const out: Obj = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== "");
    let node: any = out;
    parts.forEach((p, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]!);
      if (last) node[p] = value;
      else node = node[p] ??= nextIsIndex ? [] : {};
    });
  }
  return out;
}

const now = () => Math.floor(Date.now() / 1000);
const addInterval = (t: number, interval: string) => {
  const d = new Date(t * 1000);
  if (interval === "year") d.setUTCFullYear(d.getUTCFullYear() + 1);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return Math.floor(d.getTime() / 1000);
};
const error = (status: number, message: string, type = "invalid_request_error") =>
  json({ error: { type, message } }, status);

export function startStripeFake(
  opts: { port?: number; secretKey?: string; webhookSecret?: string; webhookUrl?: string } = {},
): StripeFake {
  const state = new FakeState();
  const secretKey = opts.secretKey ?? "sk_test_fake_atelier";
  const webhookSecret = opts.webhookSecret ?? "whsec_fake_atelier_test_secret";
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const invoices = new Map<string, Obj>();
  const customers = new Map<string, Obj>();
  const invoicePayments = new Map<string, Obj>(); // by PaymentIntent
  const charges = new Map<string, Obj>(); // by PaymentIntent
  const fake = {} as StripeFake;

  const customer = (email?: string) => {
    const c = { id: fakeId("cus_"), object: "customer", email: email ?? null, created: now(), metadata: {} };
    customers.set(c.id, c);
    return c;
  };

  const event = (type: string, object: Obj): Obj => ({
    id: fakeId("evt_"),
    object: "event",
    api_version: Stripe.API_VERSION,
    created: now(),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object: structuredClone(object) },
  });

  const sign = async (ev: Obj): Promise<SignedEvent> => {
    const payload = JSON.stringify(ev, null, 2);
    const signature = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: webhookSecret });
    return { event: ev, payload, signature };
  };

  const paidInvoice = (sub: Obj, start: number, end: number, reason: string) => {
    const pi = fakeId("pi_");
    const amount = sub.items.data[0].price.unit_amount as number;
    const inv = {
      id: fakeId("in_"),
      object: "invoice",
      status: "paid",
      billing_reason: reason,
      customer: sub.customer,
      currency: sub.currency,
      amount_due: amount,
      amount_paid: amount,
      amount_remaining: 0,
      created: now(),
      period_start: start,
      period_end: start,
      parent: {
        type: "subscription_details",
        quote_details: null,
        subscription_details: { subscription: sub.id, metadata: sub.metadata },
      },
      lines: {
        object: "list",
        has_more: false,
        data: [{ id: fakeId("il_"), object: "line_item", amount, currency: sub.currency, period: { start, end } }],
      },
    };
    invoices.set(inv.id, inv);
    invoicePayments.set(pi, {
      id: fakeId("inpay_"),
      object: "invoice_payment",
      invoice: inv.id,
      amount_paid: amount,
      payment: { type: "payment_intent", payment_intent: pi },
      status: "paid",
    });
    charges.set(pi, {
      id: fakeId("ch_"),
      object: "charge",
      amount,
      amount_refunded: 0,
      currency: sub.currency,
      payment_intent: pi,
      refunded: false,
      customer: sub.customer,
    });
    return inv;
  };

  fake.pay = async (sessionId) => {
    const s = sessions.get(sessionId);
    if (!s) throw new Error(`stripe fake: no session ${sessionId}`);
    if (s.status !== "open") throw new Error(`stripe fake: session ${sessionId} is ${s.status}`);
    const cus = s.customer ? customers.get(s.customer)! : customer(s.customer_email ?? undefined);
    Object.assign(s, {
      status: "complete",
      payment_status: "paid",
      customer: cus.id,
      customer_details: { email: cus.email },
    });
    const out: Obj[] = [];
    if (s.mode === "payment") {
      const pi = fakeId("pi_");
      s.payment_intent = pi;
      charges.set(pi, {
        id: fakeId("ch_"),
        object: "charge",
        amount: s.amount_total,
        amount_refunded: 0,
        currency: s.currency,
        payment_intent: pi,
        refunded: false,
        customer: cus.id,
      });
      out.push(event("checkout.session.completed", s));
    } else {
      const start = now();
      const price = s._line.price_data;
      const sub = {
        id: fakeId("sub_"),
        object: "subscription",
        status: "active",
        customer: cus.id,
        currency: s.currency,
        cancel_at_period_end: false,
        created: start,
        metadata: s._subscriptionMetadata ?? {},
        items: {
          object: "list",
          data: [
            {
              id: fakeId("si_"),
              object: "subscription_item",
              current_period_start: start,
              current_period_end: addInterval(start, price.recurring.interval),
              price: {
                id: fakeId("price_"),
                object: "price",
                unit_amount: Number(price.unit_amount),
                currency: price.currency,
                recurring: { interval: price.recurring.interval },
              },
            },
          ],
        },
      };
      subscriptions.set(sub.id, sub);
      const inv = paidInvoice(sub, start, sub.items.data[0].current_period_end, "subscription_create");
      Object.assign(s, { subscription: sub.id, invoice: inv.id });
      out.push(
        event("customer.subscription.created", sub),
        event("invoice.paid", inv),
        event("checkout.session.completed", s),
      );
    }
    return Promise.all(out.map(sign));
  };

  fake.renew = async (subscriptionId) => {
    const sub = subscriptions.get(subscriptionId);
    if (!sub) throw new Error(`stripe fake: no subscription ${subscriptionId}`);
    const item = sub.items.data[0];
    const start = item.current_period_end as number;
    const end = addInterval(start, item.price.recurring.interval);
    Object.assign(item, { current_period_start: start, current_period_end: end });
    const inv = paidInvoice(sub, start, end, "subscription_cycle");
    return Promise.all([event("invoice.paid", inv), event("customer.subscription.updated", sub)].map(sign));
  };

  fake.refund = async (paymentIntent, amount) => {
    const ch = charges.get(paymentIntent);
    if (!ch) throw new Error(`stripe fake: no charge for ${paymentIntent}`);
    ch.amount_refunded = Math.min(ch.amount, ch.amount_refunded + (amount ?? ch.amount - ch.amount_refunded));
    ch.refunded = ch.amount_refunded === ch.amount;
    return [await sign(event("charge.refunded", ch))];
  };

  fake.cancel = async (subscriptionId) => {
    const sub = subscriptions.get(subscriptionId);
    if (!sub) throw new Error(`stripe fake: no subscription ${subscriptionId}`);
    Object.assign(sub, { status: "canceled", canceled_at: now(), ended_at: now() });
    return [await sign(event("customer.subscription.deleted", sub))];
  };

  fake.dispute = async (paymentIntent) => {
    const ch = charges.get(paymentIntent);
    if (!ch) throw new Error(`stripe fake: no charge for ${paymentIntent}`);
    ch.disputed = true;
    const dispute = {
      id: fakeId("dp_"),
      object: "dispute",
      amount: ch.amount - ch.amount_refunded,
      charge: ch.id,
      currency: ch.currency,
      payment_intent: paymentIntent,
      reason: "fraudulent",
      status: "needs_response",
      created: now(),
      livemode: false,
    };
    return [await sign(event("charge.dispute.created", dispute))];
  };

  fake.expire = async (sessionId) => {
    const s = sessions.get(sessionId);
    if (!s) throw new Error(`stripe fake: no session ${sessionId}`);
    if (s.status !== "open") throw new Error(`stripe fake: session ${sessionId} is ${s.status}`);
    Object.assign(s, { status: "expired", url: null });
    return [await sign(event("checkout.session.expired", s))];
  };

  fake.sign = sign;

  fake.paymentIntentOf = (id) => {
    const s = sessions.get(id);
    if (s?.payment_intent) return s.payment_intent;
    for (const [pi, p] of invoicePayments) if (p.invoice === id) return pi;
    throw new Error(`stripe fake: nothing paid ${id}`);
  };

  fake.deliver = async (events, url = fake.webhookUrl) => {
    if (!url) throw new Error("stripe fake: no webhook URL");
    const out: Response[] = [];
    for (const e of events) {
      out.push(
        await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "stripe-signature": e.signature },
          body: e.payload,
        }),
      );
    }
    return out;
  };

  const running = startFake(
    opts.port ?? 0,
    "",
    async (req, url, origin) => {
      // The fake's own pay page (for `bun run fakes` by hand): pays and delivers to webhookUrl.
      const pay = /^\/pay\/([\w]+)$/.exec(url.pathname);
      if (pay) {
        const s = sessions.get(pay[1]!);
        if (!s) return new Response("no such session", { status: 404 });
        if (req.method === "POST") {
          if (s.status === "open") await fake.deliver(await fake.pay(s.id));
          return Response.redirect(s.success_url, 303);
        }
        return new Response(
          `<!doctype html><title>Stripe fake checkout</title><h1>Stripe fake: ${s._line.price_data.product_data.name}</h1><p>${s.amount_total} ${s.currency}</p><form method="post"><button>Pay</button></form><p><a href="${s.cancel_url}">Cancel</a></p>`,
          { headers: { "content-type": "text/html" } },
        );
      }

      const logged = await state.log(req);
      if (req.headers.get("authorization") !== `Bearer ${secretKey}`)
        return error(401, "Invalid API Key provided", "invalid_request_error");
      const body = typeof logged.body === "string" ? parseForm(logged.body) : {};
      const p = url.pathname;
      const m = (re: RegExp) => re.exec(p);

      if (req.method === "POST" && p === "/v1/checkout/sessions") {
        const line = body.line_items?.[0];
        if (!line?.price_data && !line?.price) return error(400, "line_items is required");
        if (!body.success_url) return error(400, "success_url is required");
        if (!["payment", "subscription"].includes(body.mode)) return error(400, "Invalid mode");
        if (body.mode === "subscription" && !line.price_data?.recurring)
          return error(400, "subscription mode needs a recurring price");
        const id = fakeId("cs_test_");
        const s = {
          id,
          object: "checkout.session",
          mode: body.mode,
          status: "open",
          payment_status: "unpaid",
          url: `${origin}/pay/${id}`,
          client_reference_id: body.client_reference_id ?? null,
          metadata: body.metadata ?? {},
          customer: body.customer ?? null,
          customer_email: body.customer_email ?? null,
          currency: line.price_data.currency,
          amount_total: Number(line.price_data.unit_amount) * Number(line.quantity ?? 1),
          amount_subtotal: Number(line.price_data.unit_amount) * Number(line.quantity ?? 1),
          payment_intent: null,
          subscription: null,
          invoice: null,
          success_url: body.success_url,
          cancel_url: body.cancel_url ?? null,
          created: now(),
          livemode: false,
          _line: line,
          _subscriptionMetadata: body.subscription_data?.metadata,
        };
        sessions.set(id, s);
        return json(s);
      }
      let r = m(/^\/v1\/checkout\/sessions\/([\w]+)$/);
      if (r && req.method === "GET")
        return sessions.has(r[1]!) ? json(sessions.get(r[1]!)) : error(404, "No such checkout session");

      if (req.method === "POST" && p === "/v1/customers") return json(customer(body.email));
      r = m(/^\/v1\/customers\/([\w]+)$/);
      if (r && req.method === "GET")
        return customers.has(r[1]!) ? json(customers.get(r[1]!)) : error(404, "No such customer");

      r = m(/^\/v1\/subscriptions\/([\w]+)$/);
      if (r) {
        const sub = subscriptions.get(r[1]!);
        if (!sub) return error(404, "No such subscription");
        if (req.method === "GET") return json(sub);
        if (req.method === "POST") {
          if (body.cancel_at_period_end !== undefined) sub.cancel_at_period_end = body.cancel_at_period_end === "true";
          return json(sub);
        }
        if (req.method === "DELETE") {
          Object.assign(sub, { status: "canceled", canceled_at: now() });
          return json(sub);
        }
      }

      if (req.method === "GET" && p === "/v1/invoice_payments") {
        const pi = url.searchParams.get("payment[payment_intent]");
        const found = pi ? invoicePayments.get(pi) : undefined;
        return json({ object: "list", url: "/v1/invoice_payments", has_more: false, data: found ? [found] : [] });
      }

      if (req.method === "POST" && p === "/v1/billing_portal/sessions") {
        if (!body.customer || !customers.has(body.customer)) return error(400, "No such customer");
        const id = fakeId("bps_");
        return json({
          id,
          object: "billing_portal.session",
          customer: body.customer,
          return_url: body.return_url ?? null,
          url: `${origin}/portal/${id}`,
        });
      }
      return error(404, `Unrecognized request URL (${req.method}: ${p})`);
    },
    state,
  );

  return Object.assign(fake, running, {
    secretKey,
    webhookSecret,
    env: { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_URL: running.origin },
    sessions,
    subscriptions,
    invoices,
    customers,
    webhookUrl: opts.webhookUrl,
  });
}
