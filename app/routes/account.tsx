import { Form, useNavigation } from "react-router";
import { Notice, PageHeader, TableScroll } from "~/components/ui";
import { UI_MESSAGES } from "~/domain/account/messages";
import { checkedInToday, checkIn } from "~/domain/credits/checkin.server";
import { getCredits, listDebits, listGrants, reservedCredits } from "~/domain/credits/ledger.server";
import { getActiveSubscription, toSubscriptionInfo } from "~/domain/subscriptions/subscriptions.server";
import { setAffiliate, toUserInfo } from "~/domain/users/users.server";
import { iso } from "~/lib/clock";
import { getServices } from "~/lib/services.server";
import { OrderHistory, Referrals } from "~/components/billing/account-billing";
import { accountBilling } from "~/domain/billing/orders.server";
import { requireUiUser } from "~/lib/session.server";
import type { Route } from "./+types/account";

export const meta: Route.MetaFunction = () => [{ title: "Account — Atelier" }];

export async function loader({ request }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { config, db, clock } = getServices();
  const info = toUserInfo(user);
  const sub = await getActiveSubscription(db, user.id, clock);
  return {
    profile: info,
    emailVerified: user.emailVerified,
    inviteLink: `${config.publicUrl}/sign-up?ref=${info.invite_code}`,
    credits: await db.exec(getCredits(db, user.id, clock)),
    reserved: await db.exec(reservedCredits(db, user.id)),
    grants: await db.exec(listGrants(db, user.id, clock)),
    debits: await db.exec(listDebits(db, user.id)),
    checkedIn: await checkedInToday(db, user.id, clock),
    subscription: sub ? { ...toSubscriptionInfo(sub), period_end: iso(sub.periodEnd) } : null,
    billing: await accountBilling(db, user.id),
    rewardPercent: config.AFFILIATE_REWARD_PERCENT,
  };
}

export async function action({ request }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const { db, clock } = getServices();
  const form = await request.formData();
  switch (form.get("intent")) {
    case "checkin": {
      const r = await checkIn(db, user.id, clock);
      return { notice: { kind: r.added ? "success" : "info", text: r.added ? UI_MESSAGES.CHECKIN_ADDED : UI_MESSAGES.CHECKIN_ALREADY } } as const;
    }
    case "affiliate": {
      const value = form.get("is_affiliate");
      if (value !== "true" && value !== "false") return { notice: { kind: "error", text: "Choose on or off." } } as const;
      const u = await setAffiliate(db, user.id, value === "true", clock.now());
      return { notice: { kind: "success", text: u.isAffiliate ? UI_MESSAGES.AFFILIATE_ON : UI_MESSAGES.AFFILIATE_OFF } } as const;
    }
    default:
      return { notice: { kind: "error", text: "Unknown action." } } as const;
  }
}

const day = (s: string | null) => (s ? new Date(s).toISOString().slice(0, 16).replace("T", " ") + " UTC" : "never");
const SOURCE: Record<string, string> = { signup: "Sign-up bonus", checkin: "Daily check-in", admin: "Granted by an admin", order: "Order", referral: "Referral reward" };

export default function Account({ loaderData, actionData }: Route.ComponentProps) {
  const { profile, emailVerified, inviteLink, credits, reserved, grants, debits, checkedIn, subscription, billing, rewardPercent } = loaderData;
  const busy = useNavigation().state === "submitting";
  const rows: [string, string][] = [
    ["User ID", profile.uuid],
    ["Email", profile.email],
    ["Email confirmed", emailVerified ? "Yes" : "Not yet"],
    ["Nickname", profile.nickname],
    ["Invite code", profile.invite_code],
    ["Invited by", profile.invited_by || "—"],
    ["Affiliate", profile.is_affiliate ? "Yes" : "No"],
    ["Member since", new Date(profile.created_at).toUTCString()],
  ];
  return (
    <div className="space-y-6">
      <PageHeader title="Account" />
      {actionData?.notice ? <Notice kind={actionData.notice.kind}>{actionData.notice.text}</Notice> : null}

      <section className="card" aria-labelledby="credits-h">
        <h2 id="credits-h" className="text-lg font-semibold">
          Credits
        </h2>
        <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-3">
          <div>
            <dt className="text-sm font-medium text-slate-500">Balance</dt>
            <dd className="text-3xl font-semibold" data-testid="left-credits">
              {credits.left_credits}
            </dd>
          </div>
          <div>
            <dt className="text-sm font-medium text-slate-500">Earned in total</dt>
            <dd className="text-3xl font-semibold" data-testid="total-credits">
              {credits.total_credits}
            </dd>
          </div>
          <div>
            <dt className="text-sm font-medium text-slate-500">Held by running tasks</dt>
            <dd className="text-3xl font-semibold" data-testid="reserved-credits">
              {reserved}
            </dd>
          </div>
        </dl>
        <div className="mt-6 flex flex-wrap items-center gap-4">
          <Form method="post">
            <input type="hidden" name="intent" value="checkin" />
            <button type="submit" className="btn-primary" disabled={busy}>
              Daily check-in
            </button>
          </Form>
          <p className="text-sm text-slate-600" data-testid="checkin-state">
            {checkedIn ? "Checked in today ✓ — next check-in after 00:00 UTC." : "Not checked in today: claim 1 free credit (valid 1 year)."}
          </p>
        </div>
      </section>

      <section className="card" aria-labelledby="subscription-h">
        <h2 id="subscription-h" className="text-lg font-semibold">
          Subscription
        </h2>
        {subscription ? (
          <dl className="mt-4 grid grid-cols-1 gap-x-6 gap-y-2 sm:grid-cols-[12rem_1fr]" data-testid="subscription">
            <dt className="text-sm font-medium text-slate-500">Plan</dt>
            <dd className="text-sm">
              {subscription.product_name} ({subscription.interval})
            </dd>
            <dt className="text-sm font-medium text-slate-500">Status</dt>
            <dd className="text-sm">{subscription.status}</dd>
            <dt className="text-sm font-medium text-slate-500">Order</dt>
            <dd className="text-sm">{subscription.order_no}</dd>
            <dt className="text-sm font-medium text-slate-500">Renews / ends</dt>
            <dd className="text-sm">{subscription.period_end ? day(subscription.period_end) : "no end date"}</dd>
          </dl>
        ) : (
          <p className="mt-2 text-sm text-slate-600" data-testid="subscription">
            No active subscription — you are on the standard tier.
          </p>
        )}
      </section>

      <OrderHistory data={billing} />

      <section className="card" aria-labelledby="affiliate-h">
        <h2 id="affiliate-h" className="text-lg font-semibold">
          Affiliate
        </h2>
        <Form method="post" className="mt-3 flex items-center gap-3">
          <input type="hidden" name="intent" value="affiliate" />
          <input type="hidden" name="is_affiliate" value={profile.is_affiliate ? "false" : "true"} />
          <button
            type="submit"
            role="switch"
            aria-checked={profile.is_affiliate}
            aria-label="Affiliate program"
            disabled={busy}
            className={`relative inline-flex h-6 w-11 items-center rounded-full transition ${profile.is_affiliate ? "bg-indigo-700" : "bg-slate-300"}`}
          >
            <span className={`inline-block h-5 w-5 rounded-full bg-white shadow transition ${profile.is_affiliate ? "translate-x-5" : "translate-x-0.5"}`} />
          </button>
          <span className="text-sm" data-testid="affiliate-state">
            {profile.is_affiliate ? "Affiliate: on" : "Affiliate: off"}
          </span>
        </Form>
        <p className="mt-3 text-sm text-slate-600">
          Your invite link: <code className="break-all rounded bg-slate-100 px-1">{inviteLink}</code>
        </p>
        <Referrals data={billing} isAffiliate={profile.is_affiliate} percent={rewardPercent} />
      </section>

      <section className="card" aria-labelledby="ledger-h">
        <h2 id="ledger-h" className="text-lg font-semibold">
          Credit history
        </h2>
        <h3 className="mt-4 text-sm font-semibold text-slate-700">Grants</h3>
        <TableScroll label="Credit grants" className="mt-2">
          <table className="w-full text-left text-sm" aria-label="Credit grants">
            <thead className="text-slate-500">
              <tr>
                <th className="py-1 pr-4 font-medium">Source</th>
                <th className="py-1 pr-4 font-medium">Granted</th>
                <th className="py-1 pr-4 font-medium">Remaining</th>
                <th className="py-1 pr-4 font-medium">Received</th>
                <th className="py-1 pr-4 font-medium">Expires</th>
              </tr>
            </thead>
            <tbody>
              {grants.map((g) => (
                <tr key={g.id} className={`border-t border-slate-100 ${g.expired ? "text-slate-400" : ""}`}>
                  <td className="py-1 pr-4">{SOURCE[g.source] ?? g.source}</td>
                  <td className="py-1 pr-4">{g.amount}</td>
                  <td className="py-1 pr-4">{g.expired ? "expired" : g.remaining}</td>
                  <td className="py-1 pr-4">{day(g.created_at)}</td>
                  <td className="py-1 pr-4">{day(g.expires_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
        <h3 className="mt-6 text-sm font-semibold text-slate-700">Spent</h3>
        {debits.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">No credits spent yet.</p>
        ) : (
          <TableScroll label="Credit debits" className="mt-2">
            <table className="w-full text-left text-sm" aria-label="Credit debits">
              <thead className="text-slate-500">
                <tr>
                  <th className="py-1 pr-4 font-medium">Generation</th>
                  <th className="py-1 pr-4 font-medium">Cost</th>
                  <th className="py-1 pr-4 font-medium">Charged</th>
                  <th className="py-1 pr-4 font-medium">When</th>
                </tr>
              </thead>
              <tbody>
                {debits.map((d) => (
                  <tr key={d.id} className="border-t border-slate-100">
                    <td className="py-1 pr-4">
                      <code className="text-xs">{d.gen_id}</code>
                      {d.generation ? (
                        <span className="ml-2 text-slate-600">
                          {d.generation.ai_type} · {d.generation.provider}/{d.generation.model} · “{d.generation.prompt.slice(0, 60)}”
                        </span>
                      ) : null}
                    </td>
                    <td className="py-1 pr-4">{d.amount}</td>
                    <td className="py-1 pr-4">{d.charged}</td>
                    <td className="py-1 pr-4">{day(d.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>

      <section className="card" aria-labelledby="profile-h">
        <div className="flex items-center gap-4">
          {profile.avatar_url ? (
            <img src={profile.avatar_url} alt="" className="h-12 w-12 rounded-full" />
          ) : (
            <div aria-hidden className="flex h-12 w-12 items-center justify-center rounded-full bg-indigo-100 text-lg font-semibold text-indigo-800">
              {profile.nickname.slice(0, 1).toUpperCase()}
            </div>
          )}
          <h2 id="profile-h" className="text-lg font-semibold">
            Profile
          </h2>
        </div>
        <dl className="mt-4 grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-[12rem_1fr]">
          {rows.map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="text-sm font-medium text-slate-500">{k}</dt>
              <dd className="break-all text-sm" data-field={k}>
                {v}
              </dd>
            </div>
          ))}
        </dl>
        {emailVerified ? null : (
          <Form method="post" action="/verify-email" className="mt-4 flex flex-wrap items-center gap-3">
            <input type="hidden" name="email" value={profile.email} />
            <p className="text-sm text-slate-600">Confirm your address to secure your account.</p>
            <button type="submit" className="btn-secondary">
              Send a confirmation link
            </button>
          </Form>
        )}
      </section>
    </div>
  );
}
