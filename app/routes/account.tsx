import { PageHeader } from "~/components/ui";
import { toUserInfo } from "~/domain/users/users.server";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
import type { Route } from "./+types/account";

export const meta: Route.MetaFunction = () => [{ title: "Account — Atelier" }];

export async function loader({ request }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { config } = getServices();
  const info = toUserInfo(user);
  return { profile: info, inviteLink: `${config.publicUrl}/sign-up?ref=${info.invite_code}` };
}

export default function Account({ loaderData }: Route.ComponentProps) {
  const { profile, inviteLink } = loaderData;
  const rows: [string, string][] = [
    ["User ID", profile.uuid],
    ["Email", profile.email],
    ["Nickname", profile.nickname],
    ["Invite code", profile.invite_code],
    ["Invited by", profile.invited_by || "—"],
    ["Affiliate", profile.is_affiliate ? "Yes" : "No"],
    ["Member since", new Date(profile.created_at).toUTCString()],
  ];
  return (
    <div className="space-y-6">
      <PageHeader title="Account" />
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
        <p className="mt-4 text-sm text-slate-600">
          Your invite link: <code className="break-all rounded bg-slate-100 px-1">{inviteLink}</code>
        </p>
      </section>
    </div>
  );
}
