import { Badge, Button, buttonVariants, Card, formatDate, Notice, Row, RowList } from "~/components/ui";
import { AddPasskeyButton } from "./passkey-button";

export interface SignInMethodView {
  id: string;
  providerId: string;
  name: string;
  linkedAt: string;
}

const OUTCOMES: Record<string, { kind: "success" | "error"; text: string }> = {
  linked: { kind: "success", text: "The provider is linked: you can sign in with it now." },
  unlinked: { kind: "success", text: "Unlinked. That way in no longer signs you in." },
  failed_to_unlink_last_account: { kind: "error", text: "This is your only way to sign in: link another first." },
  session_not_fresh: { kind: "error", text: "For your safety, sign in again before unlinking a sign-in method." },
  passkey_added: { kind: "success", text: "Passkey added: you can sign in with it now." },
  passkey_removed: { kind: "success", text: "Passkey removed." },
  account_not_found: { kind: "error", text: "That sign-in method is not linked to this account." },
  provider_not_configured: { kind: "error", text: "This sign-in provider is not configured on this server." },
};

/** The account page's "Sign-in methods": the password and linked providers, with link and unlink forms. */
export function SignInMethods({
  methods,
  linkable,
  outcome,
  providerError,
  twoFactorEnabled,
  passkeys,
}: {
  methods: readonly SignInMethodView[];
  linkable: readonly { id: string; name: string }[];
  outcome: string | null;
  providerError: string | null;
  twoFactorEnabled: boolean;
  passkeys: readonly { id: string; name: string; createdAt: string | null }[];
}) {
  const notice = outcome
    ? (OUTCOMES[outcome] ?? { kind: "error" as const, text: "That did not work. Try again." })
    : null;
  const canUnlink = methods.length > 1;
  return (
    <Card title="Sign-in methods" id="sign-in-methods" anchor description="The ways you can sign in to this account.">
      {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
      {providerError ? <Notice kind="error">{providerError}</Notice> : null}
      <RowList label="Linked sign-in methods">
        {methods.map((m) => (
          <Row
            key={m.id}
            data-method={m.providerId}
            title={
              <>
                <span className="font-medium">{m.name}</span>
                {m.providerId === "credential" ? null : <Badge>linked</Badge>}
              </>
            }
            actions={
              canUnlink ? (
                <form method="post" action="/account/sign-in">
                  <input type="hidden" name="intent" value="unlink" />
                  <input type="hidden" name="account" value={m.id} />
                  <Button type="submit" variant="secondary" size="sm" aria-label={`Unlink ${m.name}`}>
                    Unlink
                  </Button>
                </form>
              ) : null
            }
          >
            <p className="text-xs text-muted-foreground">Since {formatDate(m.linkedAt, { time: false })}</p>
          </Row>
        ))}
      </RowList>
      <div className="mt-4 flex flex-wrap items-center gap-3 border-t border-border pt-4">
        <p className="min-w-0 flex-1 basis-48 text-sm">
          <span className="font-medium">Two-factor authentication</span>{" "}
          {twoFactorEnabled ? <Badge tone="success">On</Badge> : <Badge>Off</Badge>}
          <span className="block text-muted-foreground">
            A code from an authenticator app when you sign in with your password.
          </span>
        </p>
        <a href="/account/two-factor" className={buttonVariants({ variant: "secondary", size: "sm" })}>
          {twoFactorEnabled ? "Manage two-factor" : "Set up two-factor"}
        </a>
      </div>
      <div className="mt-4 border-t border-border pt-4">
        <p className="text-sm font-medium">Passkeys</p>
        <p className="text-sm text-muted-foreground">
          Sign in with your fingerprint, face or device PIN instead of a password.
        </p>
        {passkeys.length > 0 ? (
          <RowList label="Passkeys">
            {passkeys.map((p) => (
              <Row
                key={p.id}
                data-passkey={p.id}
                title={<span className="font-medium">{p.name}</span>}
                actions={
                  <form method="post" action="/account/sign-in">
                    <input type="hidden" name="intent" value="passkey-delete" />
                    <input type="hidden" name="passkey" value={p.id} />
                    <Button type="submit" variant="secondary" size="sm" aria-label={`Remove passkey ${p.name}`}>
                      Remove
                    </Button>
                  </form>
                }
              >
                {p.createdAt ? (
                  <p className="text-xs text-muted-foreground">Added {formatDate(p.createdAt, { time: false })}</p>
                ) : null}
              </Row>
            ))}
          </RowList>
        ) : null}
        <div className="mt-3">
          <AddPasskeyButton />
        </div>
      </div>
      {linkable.length > 0 ? (
        <div className="mt-4 flex flex-wrap gap-2 border-t border-border pt-4">
          {linkable.map((p) => (
            <form key={p.id} method="post" action="/account/sign-in">
              <input type="hidden" name="intent" value="link" />
              <input type="hidden" name="provider" value={p.id} />
              <Button type="submit" variant="secondary" size="sm">
                {`Link ${p.name}`}
              </Button>
            </form>
          ))}
        </div>
      ) : null}
    </Card>
  );
}
