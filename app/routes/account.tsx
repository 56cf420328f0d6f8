import { CalendarCheck, Check, Gift } from "lucide-react";
import { Form, Link, redirect, useNavigation } from "react-router";
import { SignInMethods } from "~/components/account/sign-in-methods";
import { YourData } from "~/components/account/your-data";
import { OrderHistory, Referrals } from "~/components/billing/account-billing";
import { Badge, Button, Card, CopyButton, cn, Facts, formatDate, Notice, PageHeader, Stat } from "~/components/ui";
import { UsageSection } from "~/components/usage-section";
import { hasPassword } from "~/domain/account/delete.server";
import { UI_MESSAGES } from "~/domain/account/messages";
import { accountBilling } from "~/domain/billing/orders.server";
import { checkedInToday, checkIn } from "~/domain/credits/checkin.server";
import { balanceOf, getCredits, listDebits, listGrants } from "~/domain/credits/ledger.server";
import { getActiveSubscription, toSubscriptionInfo } from "~/domain/subscriptions/subscriptions.server";
import { dailyUsage } from "~/domain/usage/daily.server";
import { listPasskeys, listSignInMethods } from "~/domain/users/sign-in-methods.server";
import { findUserById, setAffiliate, toUserInfo } from "~/domain/users/users.server";
import { deleteFromAccountPage } from "~/http/account-deletion.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { signInMethodName, signInProviders } from "~/http/sign-in-providers.server";
import { providerErrorMessage } from "~/lib/auth-errors";
import { DAY_MS, iso } from "~/lib/clock";
import type { Route } from "./+types/account";

export const meta: Route.MetaFunction = () => [{ title: "Account — Atelier" }];

export async function loader({ request }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { config, db, clock } = getServices();
  const info = toUserInfo(user);
  const sub = await getActiveSubscription(db, user.id, clock);
  const inviter = user.invitedBy ? await findUserById(db, user.invitedBy) : undefined;
  const now = clock.now();
  const nextCheckIn = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  const methods = await listSignInMethods(db, user.id);
  const params = new URL(request.url).searchParams;
  const providerError = params.get("error");
  return {
    signIn: {
      methods: methods.map((m) => ({
        id: m.id,
        providerId: m.providerId,
        name: signInMethodName(config, m.providerId),
        linkedAt: m.linkedAt.toISOString(),
      })),
      linkable: signInProviders(config).filter((p) => !methods.some((m) => m.providerId === p.id)),
      outcome: params.get("signin")?.slice(0, 100) ?? null,
      providerError: providerError ? providerErrorMessage(providerError.slice(0, 100)) : null,
      twoFactorEnabled: user.twoFactorEnabled,
      passkeys: (await listPasskeys(db, user.id)).map((p) => ({
        id: p.id,
        name: p.name || "Passkey",
        createdAt: p.createdAt?.toISOString() ?? null,
      })),
    },
    profile: info,
    emailVerified: user.emailVerified,
    // The inviter by display name only: even a masked address (its first letters and domain) narrows a person down.
    inviter: inviter ? { name: inviter.name } : null,
    inviteLink: `${config.publicUrl}/sign-up?ref=${info.invite_code}`,
    credits: await db.exec(getCredits(db, user.id, clock)),
    balance: await db.exec(balanceOf(db, user.id, clock)),
    grants: await db.exec(listGrants(db, user.id, clock)),
    debits: await db.exec(listDebits(db, user.id)),
    checkedIn: await checkedInToday(db, user.id, clock),
    nextCheckIn: { at: new Date(nextCheckIn).toISOString(), inMinutes: Math.ceil((nextCheckIn - now) / 60_000) },
    subscription: sub ? { ...toSubscriptionInfo(sub), period_end: iso(sub.periodEnd) } : null,
    billing: await accountBilling(db, user.id),
    rewardPercent: config.AFFILIATE_REWARD_PERCENT,
    hasPassword: await hasPassword(db, user.id),
    usage: await dailyUsage({ db, now }, user.id),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const services = getServices();
  const { db, clock } = services;
  const form = await request.formData();
  switch (form.get("intent")) {
    case "delete-account": {
      const r = await deleteFromAccountPage(services, request, form, user);
      if ("error" in r) return { deleteError: r.error } as const;
      throw redirect("/?notice=account-deleted", { headers: r.headers });
    }
    case "checkin": {
      const r = await checkIn(db, user.id, clock);
      return {
        notice: {
          kind: r.added ? "success" : "info",
          text: r.added ? UI_MESSAGES.CHECKIN_ADDED : UI_MESSAGES.CHECKIN_ALREADY,
        },
      } as const;
    }
    case "affiliate": {
      const value = form.get("is_affiliate");
      if (value !== "true" && value !== "false")
        return { notice: { kind: "error", text: "Choose on or off." } } as const;
      const u = await setAffiliate(db, user.id, value === "true", clock.now());
      return {
        notice: { kind: "success", text: u.isAffiliate ? UI_MESSAGES.AFFILIATE_ON : UI_MESSAGES.AFFILIATE_OFF },
      } as const;
    }
    default:
      return { notice: { kind: "error", text: "Unknown action." } } as const;
  }
}

const SOURCE: Record<string, string> = {
  signup: "Sign-up bonus",
  checkin: "Daily check-in",
  admin: "Granted by an admin",
  order: "Purchase",
  referral: "Referral reward",
};
const inHours = (min: number) => (min >= 60 ? `${Math.floor(min / 60)} h ${min % 60} min` : `${min} min`);

export default function Account({ loaderData, actionData }: Route.ComponentProps) {
  const {
    profile,
    emailVerified,
    inviter,
    inviteLink,
    credits,
    balance,
    grants,
    debits,
    checkedIn,
    nextCheckIn,
    subscription,
    billing,
    rewardPercent,
    signIn,
    hasPassword,
  } = loaderData;
  const busy = useNavigation().state === "submitting";
  const rows: [string, React.ReactNode][] = [
    ["Email", profile.email],
    ["Email confirmed", emailVerified ? "Yes" : "Not yet"],
    ["Nickname", profile.nickname],
    ["Member since", formatDate(profile.created_at, { time: false })],
    ["Invited by", inviter ? inviter.name : "—"],
    ["Invite code", <code key="c">{profile.invite_code}</code>],
    [
      "User ID",
      <code key="u" className="text-xs">
        {profile.uuid}
      </code>,
    ],
  ];
  return (
    <div className="space-y-6">
      <PageHeader title="Account" description="Your credits, invite link and profile." />
      {actionData && "notice" in actionData && actionData.notice ? (
        <Notice kind={actionData.notice.kind}>{actionData.notice.text}</Notice>
      ) : null}

      <Card title="Credits" id="credits">
        {/* One figure, what can be spent now; what running tasks hold and what came in overall are not balances. */}
        <dl className="flex flex-wrap items-end gap-x-8 gap-y-3">
          <Stat size="xl" label="Available to spend" value={balance.available} data-testid="available-credits" />
          <Stat size="sm" label="Held by running tasks" value={balance.held} data-testid="reserved-credits" />
          <Stat size="sm" label="Earned in total" value={credits.total_credits} data-testid="total-credits" />
        </dl>
        <div className="mt-5 flex flex-wrap items-center gap-3 rounded-2xl border border-border p-4">
          <span
            aria-hidden="true"
            className="flex size-10 items-center justify-center rounded-xl bg-accent-soft text-accent-soft-foreground"
          >
            {checkedIn ? <Check className="size-5" /> : <CalendarCheck className="size-5" />}
          </span>
          <div className="min-w-0 flex-1 basis-48">
            <p className="font-medium">Daily check-in</p>
            <p className="text-sm text-muted-foreground" data-testid="checkin-state">
              {checkedIn
                ? `Checked in today. The next check-in opens at 00:00 UTC, in ${inHours(nextCheckIn.inMinutes)}.`
                : "Not checked in today: claim 1 free credit, valid for a year."}
            </p>
          </div>
          {checkedIn ? (
            <Badge tone="success">Done for today</Badge>
          ) : (
            <Form method="post">
              <input type="hidden" name="intent" value="checkin" />
              <Button type="submit" disabled={busy}>
                Daily check-in
              </Button>
            </Form>
          )}
        </div>
      </Card>

      <UsageSection usage={loaderData.usage} />

      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Invite friends" id="invite">
          <p className="text-sm text-muted-foreground">People who sign up with your link are linked to your account.</p>
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <code className="min-w-0 flex-1 rounded-xl bg-muted px-3 py-2 text-xs break-all" data-testid="invite-link">
              {inviteLink}
            </code>
            <CopyButton text={inviteLink} label="Copy link" />
          </div>
          <Form method="post" className="mt-5 flex items-start gap-3 border-t border-border pt-4">
            <input type="hidden" name="intent" value="affiliate" />
            <input type="hidden" name="is_affiliate" value={profile.is_affiliate ? "false" : "true"} />
            <button
              type="submit"
              role="switch"
              aria-checked={profile.is_affiliate}
              aria-labelledby="affiliate-label"
              aria-describedby="affiliate-d"
              disabled={busy}
              className={cn(
                "relative mt-0.5 inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full transition",
                profile.is_affiliate ? "bg-primary" : "bg-input",
              )}
            >
              <span
                className={cn(
                  "inline-block size-5 rounded-full bg-white shadow transition",
                  profile.is_affiliate ? "translate-x-5" : "translate-x-0.5",
                )}
              />
            </button>
            <span>
              <span id="affiliate-label" className="block text-sm font-medium">
                Affiliate program <span data-testid="affiliate-state">{profile.is_affiliate ? "(on)" : "(off)"}</span>
              </span>
              <span id="affiliate-d" className="mt-0.5 block text-sm text-muted-foreground">
                When on, you earn {rewardPercent} % of the credits of the first purchase of each person who signed up
                with your link. Your link works either way.
              </span>
            </span>
          </Form>
          <Referrals data={billing} />
        </Card>

        <Card title="Subscription" id="subscription">
          {subscription ? (
            <dl
              className="grid grid-cols-[minmax(0,8rem)_minmax(0,1fr)] gap-x-4 gap-y-2 text-sm"
              data-testid="subscription"
            >
              <dt className="text-muted-foreground">Plan</dt>
              <dd>
                {subscription.product_name} ({subscription.interval})
              </dd>
              <dt className="text-muted-foreground">Status</dt>
              <dd>
                <Badge tone="success">{subscription.status}</Badge>
              </dd>
              <dt className="text-muted-foreground">Order</dt>
              <dd className="break-all">{subscription.order_no}</dd>
              <dt className="text-muted-foreground">Renews / ends</dt>
              <dd>{subscription.period_end ? formatDate(subscription.period_end) : "no end date"}</dd>
            </dl>
          ) : (
            <p className="text-sm text-muted-foreground" data-testid="subscription">
              No active subscription — you are on the standard tier.
            </p>
          )}
        </Card>
      </div>

      <OrderHistory data={billing} />

      <Card title="Credit history" id="ledger" description="What came in, and what each result cost.">
        <h3 className="text-sm font-semibold">Received</h3>
        <ul className="mt-2 divide-y divide-border" aria-label="Credit grants">
          {grants.map((g) => (
            <li
              key={g.id}
              className={cn(
                "flex flex-wrap items-baseline justify-between gap-x-4 gap-y-0.5 py-2.5 text-sm",
                g.expired && "text-muted-foreground",
              )}
            >
              <span className="flex items-center gap-2 font-medium">
                <Gift aria-hidden="true" className="size-4 text-accent" />
                {SOURCE[g.source] ?? g.source}
              </span>
              <span className="tabular-nums">
                +{g.amount}
                <span className="text-muted-foreground"> · {g.expired ? "expired" : `${g.remaining} left`}</span>
              </span>
              <span className="w-full text-xs text-muted-foreground">
                {formatDate(g.created_at)} ·{" "}
                {g.expires_at ? `expires ${formatDate(g.expires_at, { time: false })}` : "never expires"}
              </span>
            </li>
          ))}
        </ul>
        <h3 className="mt-6 text-sm font-semibold">Spent</h3>
        {debits.length === 0 ? (
          <p className="mt-2 text-sm text-muted-foreground">
            No credits spent yet.{" "}
            <Link to="/studio" className="link">
              Create something
            </Link>
          </p>
        ) : (
          <ul className="mt-2 divide-y divide-border" aria-label="Credit debits">
            {debits.map((d) => (
              <li key={d.id} className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-0.5 py-2.5 text-sm">
                <Link to={`/studio/${d.gen_id}`} className="min-w-0 flex-1 truncate font-medium hover:underline">
                  {d.generation ? `“${d.generation.prompt}”` : d.gen_id}
                </Link>
                <span className="tabular-nums">−{d.charged}</span>
                <span className="w-full text-xs text-muted-foreground">
                  {formatDate(d.created_at)}
                  {d.generation ? ` · ${d.generation.ai_type} · ${d.generation.provider}/${d.generation.model}` : ""}
                  {d.charged !== d.amount ? ` · price ${d.amount}, ${d.charged} could be drawn` : ""}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>

      <SignInMethods {...signIn} />

      <Card title="Profile" id="profile">
        <Facts items={rows} />
        {emailVerified ? null : (
          <Form method="post" action="/verify-email" className="mt-4 flex flex-wrap items-center gap-3">
            <input type="hidden" name="email" value={profile.email} />
            <p className="text-sm text-muted-foreground">Confirm your address to secure your account.</p>
            <Button type="submit" variant="secondary" size="sm">
              Send a confirmation link
            </Button>
          </Form>
        )}
      </Card>

      <YourData
        email={profile.email}
        hasPassword={hasPassword}
        error={actionData && "deleteError" in actionData ? actionData.deleteError : undefined}
        busy={busy}
      />
    </div>
  );
}
