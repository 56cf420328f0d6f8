import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import { KeyRound } from "lucide-react";
import { useEffect, useState } from "react";
import { Button, Notice } from "~/components/ui";

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

const failure = (error: unknown) =>
  error instanceof Error && error.name === "NotAllowedError"
    ? "The passkey request was cancelled or timed out."
    : `The passkey did not work: ${error instanceof Error ? error.message : String(error)}`;

/** "Add a passkey" on the account page: registers one with this browser or device, then reloads the list. */
export function AddPasskeyButton() {
  const ready = useWebAuthn();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!ready) return null;
  const add = async () => {
    setBusy(true);
    setError(null);
    try {
      const optionsJSON = await authJson("/passkey/generate-register-options");
      const response = await startRegistration({ optionsJSON: optionsJSON as never });
      await authJson("/passkey/verify-registration", {
        method: "POST",
        body: JSON.stringify({ response, name: navigator.platform || "Passkey" }),
      });
      window.location.assign("/account?signin=passkey_added#sign-in-methods");
    } catch (e) {
      setError(failure(e));
      setBusy(false);
    }
  };
  return (
    <div className="space-y-2">
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Button type="button" variant="secondary" size="sm" onClick={add} disabled={busy}>
        <KeyRound aria-hidden="true" />
        Add a passkey
      </Button>
    </div>
  );
}

/** "Sign in with a passkey" on the sign-in page. */
export function PasskeySignInButton({ next }: { next: string }) {
  const ready = useWebAuthn();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!ready) return null;
  const signIn = async () => {
    setBusy(true);
    setError(null);
    try {
      const optionsJSON = await authJson("/passkey/generate-authenticate-options");
      const response = await startAuthentication({ optionsJSON: optionsJSON as never });
      await authJson("/passkey/verify-authentication", { method: "POST", body: JSON.stringify({ response }) });
      window.location.assign(next.startsWith("/") && !next.startsWith("//") ? next : "/studio");
    } catch (e) {
      setError(failure(e));
      setBusy(false);
    }
  };
  return (
    <div className="space-y-2">
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Button type="button" variant="secondary" className="w-full" onClick={signIn} disabled={busy}>
        <KeyRound aria-hidden="true" />
        Sign in with a passkey
      </Button>
    </div>
  );
}
