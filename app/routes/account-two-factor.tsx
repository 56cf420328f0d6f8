import { data, Form, Link, redirect, useNavigation } from "react-router";
import { renderSVG } from "uqr";
import { Badge, Button, Card, Field, Notice, PageHeader } from "~/components/ui";
import { listSignInMethods } from "~/domain/users/sign-in-methods.server";
import { authPost } from "~/http/auth-forms.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { authErrorMessage } from "~/lib/auth-errors";
import type { Route } from "./+types/account-two-factor";

export const meta: Route.MetaFunction = () => [{ title: "Two-factor authentication — Atelier" }];

/**
 * Two-factor with an authenticator app (better-auth's two-factor plugin): turn it on with the password, scan the
 * code, confirm with a first code; then every password sign-in asks for a code (or a one-time backup code).
 * Plain forms: the page works without JavaScript.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const methods = await listSignInMethods(getServices().db, user.id);
  const done = new URL(request.url).searchParams.get("done");
  return {
    enabled: user.twoFactorEnabled,
    hasPassword: methods.some((m) => m.providerId === "credential"),
    done: done === "on" ? DONE_ON : done === "off" ? DONE_OFF : null,
  };
}

const DONE_ON = "Two-factor is on: sign-ins with your password now ask for a code.";
const DONE_OFF = "Two-factor is off.";

type Result =
  | { kind: "setup"; totpURI: string; qr: string; secret: string; backupCodes?: string[]; error?: string }
  | { kind: "codes"; backupCodes: string[] }
  | { kind: "done"; text: string }
  | { kind: "error"; text: string };

const setupOf = (totpURI: string, extra: { backupCodes?: string[]; error?: string } = {}): Result => ({
  kind: "setup",
  totpURI,
  qr: renderSVG(totpURI, { border: 2 }),
  secret: new URL(totpURI).searchParams.get("secret") ?? "",
  ...extra,
});

export async function action({ request }: Route.ActionArgs) {
  const { result, headers } = await twoFactorAction(request);
  // better-auth replaces the session when two-factor is turned on or off: the page is loaded again with the new
  // cookie (this request's loader would still see the old one, which no longer exists).
  if (result.kind === "done")
    return redirect(`/account/two-factor?done=${result.text.includes("is on") ? "on" : "off"}`, { headers });
  return data(result, { headers });
}

async function twoFactorAction(request: Request): Promise<{ result: Result; headers?: Headers }> {
  await requireUiUser(request);
  const form = await request.formData();
  const password = String(form.get("password") ?? "");
  switch (form.get("intent")) {
    case "enable": {
      const reply = await authPost(request, "/two-factor/enable", { password });
      const totpURI = reply.data?.totpURI;
      if (!reply.ok || typeof totpURI !== "string") return { result: { kind: "error", text: authErrorMessage(reply) } };
      return { result: setupOf(totpURI, { backupCodes: reply.data?.backupCodes as string[] }) };
    }
    case "verify": {
      const code = String(form.get("code") ?? "").replace(/\s+/g, "");
      const reply = await authPost(request, "/two-factor/verify-totp", { code });
      if (reply.ok)
        return {
          result: { kind: "done", text: DONE_ON },
          headers: reply.headers,
        };
      const totpURI = String(form.get("totp_uri") ?? "");
      // The key shown again is the one this page was given (a hidden field), only redrawn: never trusted.
      let again: Result = { kind: "error", text: authErrorMessage(reply) };
      try {
        if (/^otpauth:\/\/totp\/[\x21-\x7e]{1,512}$/.test(totpURI))
          again = setupOf(totpURI, { error: authErrorMessage(reply) });
      } catch {}
      return { result: again };
    }
    case "backup-codes": {
      const reply = await authPost(request, "/two-factor/generate-backup-codes", { password });
      const codes = reply.data?.backupCodes;
      if (!reply.ok || !Array.isArray(codes)) return { result: { kind: "error", text: authErrorMessage(reply) } };
      return { result: { kind: "codes", backupCodes: codes as string[] }, headers: reply.headers };
    }
    case "disable": {
      const reply = await authPost(request, "/two-factor/disable", { password });
      if (!reply.ok) return { result: { kind: "error", text: authErrorMessage(reply) } };
      return { result: { kind: "done", text: DONE_OFF }, headers: reply.headers };
    }
    default:
      return { result: { kind: "error", text: "Unknown action." } };
  }
}

function BackupCodes({ codes }: { codes: string[] }) {
  return (
    <div className="mt-4">
      <p className="text-sm font-medium">Backup codes</p>
      <p className="text-sm text-muted-foreground">
        Keep these somewhere safe: each signs you in once if you lose your phone. They are shown only now.
      </p>
      <ul
        className="mt-2 grid grid-cols-2 gap-2 font-mono text-sm"
        aria-label="Backup codes"
        data-testid="backup-codes"
      >
        {codes.map((c) => (
          <li key={c} className="rounded-lg bg-muted px-2 py-1 text-center">
            {c}
          </li>
        ))}
      </ul>
    </div>
  );
}

function PasswordForm({ intent, label, variant }: { intent: string; label: string; variant?: "secondary" | "danger" }) {
  const busy = useNavigation().state === "submitting";
  return (
    <Form method="post" className="flex flex-wrap items-end gap-3">
      <input type="hidden" name="intent" value={intent} />
      <Field
        label="Your password"
        name="password"
        id={`f-password-${intent}`}
        type="password"
        autoComplete="current-password"
        required
        className="min-w-0"
      />
      <Button type="submit" variant={variant} disabled={busy}>
        {label}
      </Button>
    </Form>
  );
}

export default function AccountTwoFactor({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData;
  const enabled = loaderData.enabled;
  return (
    <div className="mx-auto max-w-2xl space-y-6">
      <PageHeader
        title="Two-factor authentication"
        description="A code from an authenticator app at every sign-in with your password."
      />
      <p className="text-sm">
        <Link to="/account#sign-in-methods" className="link">
          ← Back to your account
        </Link>
      </p>
      {result?.kind === "error" ? <Notice kind="error">{result.text}</Notice> : null}
      {loaderData.done && !result ? <Notice kind="success">{loaderData.done}</Notice> : null}
      {result?.kind === "setup" ? (
        <Card title="Scan this code" id="setup">
          {result.error ? <Notice kind="error">{result.error}</Notice> : null}
          <p className="text-sm text-muted-foreground">
            Scan it with your authenticator app (or type the key), then enter the 6-digit code it shows.
          </p>
          <div className="mt-4 flex flex-wrap items-start gap-4">
            <div
              className="size-44 shrink-0 rounded-xl bg-white p-2 text-black [&_svg]:size-full"
              role="img"
              aria-label="QR code of the authenticator key"
              // biome-ignore lint/security/noDangerouslySetInnerHtml: an SVG uqr renders from the otpauth URI (no script, no user markup)
              dangerouslySetInnerHTML={{ __html: result.qr }}
            />
            <div className="min-w-0 flex-1 text-sm">
              <p className="font-medium">Key</p>
              {/* In groups of four, as authenticator apps show and accept it. */}
              <code className="break-words" data-testid="totp-secret">
                {result.secret.match(/.{1,4}/g)?.join(" ")}
              </code>
            </div>
          </div>
          {result.backupCodes ? <BackupCodes codes={result.backupCodes} /> : null}
          <Form method="post" className="mt-4 flex flex-wrap items-end gap-3">
            <input type="hidden" name="intent" value="verify" />
            <input type="hidden" name="totp_uri" value={result.totpURI} />
            <Field
              label="Code from the app"
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]{6,8}"
              required
            />
            <Button type="submit">Turn on</Button>
          </Form>
        </Card>
      ) : null}
      {result?.kind === "codes" ? (
        <Card title="New backup codes" id="codes">
          <BackupCodes codes={result.backupCodes} />
        </Card>
      ) : null}
      <Card title="Status" id="status" actions={enabled ? <Badge tone="success">On</Badge> : <Badge>Off</Badge>}>
        {!loaderData.hasPassword ? (
          <p className="text-sm text-muted-foreground">
            Two-factor protects sign-ins with a password; this account signs in through a provider, whose own two-step
            verification applies.
          </p>
        ) : enabled ? (
          <div className="space-y-5">
            <div>
              <p className="mb-2 text-sm">New backup codes (the old ones stop working):</p>
              <PasswordForm intent="backup-codes" label="New backup codes" variant="secondary" />
            </div>
            <div>
              <p className="mb-2 text-sm">Turn two-factor off:</p>
              <PasswordForm intent="disable" label="Turn off" variant="danger" />
            </div>
          </div>
        ) : result?.kind === "setup" ? (
          <p className="text-sm text-muted-foreground">Off until you enter a code from the app above.</p>
        ) : (
          <PasswordForm intent="enable" label="Set up" />
        )}
      </Card>
    </div>
  );
}
