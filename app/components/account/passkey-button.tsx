import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import { KeyRound } from "lucide-react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button, Notice, useBusyAction } from "~/components/ui";

/** better-auth's passkey endpoints, from the page (same origin: its origin check passes). */
async function authJson(path: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(`/api/auth${path}`, {
    ...init,
    credentials: "same-origin",
    headers: init?.body ? { "content-type": "application/json" } : undefined,
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(typeof body.message === "string" ? body.message : `HTTP ${res.status}`);
  return body;
}

/** WebAuthn needs the browser's API: the buttons show only once the page runs its script and the browser has it. */
function useWebAuthn() {
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(typeof window.PublicKeyCredential === "function"), []);
  return ready;
}

/** A passkey button and what went wrong with its last try. */
function PasskeyButton({ label, action, wide }: { label: string; action: () => Promise<void>; wide?: boolean }) {
  const ready = useWebAuthn();
  const { t } = useTranslation("auth");
  const failure = (error: unknown) =>
    error instanceof Error && error.name === "NotAllowedError"
      ? t("passkey.cancelled")
      : t("passkey.failed", { reason: error instanceof Error ? error.message : String(error) });
  const { busy, error, run } = useBusyAction(action, failure);
  if (!ready) return null;
  return (
    <div className="space-y-2">
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Button
        type="button"
        variant="secondary"
        size={wide ? undefined : "sm"}
        className={wide ? "w-full" : undefined}
        onClick={run}
        disabled={busy}
      >
        <KeyRound aria-hidden="true" />
        {label}
      </Button>
    </div>
  );
}

/** "Add a passkey" on the account page: registers one with this browser or device, then reloads the list. */
export function AddPasskeyButton() {
  const add = async () => {
    const optionsJSON = await authJson("/passkey/generate-register-options");
    const response = await startRegistration({ optionsJSON: optionsJSON as never });
    await authJson("/passkey/verify-registration", {
      method: "POST",
      body: JSON.stringify({ response, name: navigator.platform || "Passkey" }),
    });
    window.location.assign("/account?signin=passkey_added#sign-in-methods");
  };
  const { t } = useTranslation("auth");
  return <PasskeyButton label={t("passkey.add")} action={add} />;
}

/** "Sign in with a passkey" on the sign-in page. */
export function PasskeySignInButton({ next }: { next: string }) {
  const signIn = async () => {
    const optionsJSON = await authJson("/passkey/generate-authenticate-options");
    const response = await startAuthentication({ optionsJSON: optionsJSON as never });
    await authJson("/passkey/verify-authentication", { method: "POST", body: JSON.stringify({ response }) });
    window.location.assign(next.startsWith("/") && !next.startsWith("//") ? next : "/studio");
  };
  const { t } = useTranslation("auth");
  return <PasskeyButton label={t("passkey.signIn")} action={signIn} wide />;
}
