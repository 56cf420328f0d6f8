/** A person-readable message for a failed better-auth request (see auth-forms.server.ts). */
export function authErrorMessage(reply: { status?: number; code?: string; message?: string }): string {
  switch (reply.code) {
    case "USER_ALREADY_EXISTS":
    case "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL":
      return "An account with this email already exists. Sign in instead.";
    case "INVALID_EMAIL_OR_PASSWORD":
      return "Email or password is incorrect.";
    case "EMAIL_NOT_VERIFIED":
      return "Confirm your e-mail address first: we have sent you a new link.";
    case "ADMIN_EMAIL_NOT_VERIFIED":
      return reply.message ?? "This administrator address signs in only once it is confirmed.";
    case "PASSWORD_TOO_SHORT":
      return "The password is too short (at least 8 characters).";
    case "PASSWORD_TOO_LONG":
      return "The password is too long (at most 128 characters).";
    case "INVALID_TOKEN":
    case "TOKEN_EXPIRED":
      return "This link is invalid or has expired. Ask for a new one.";
    case "INVALID_ORIGIN":
      return "This page was opened from an address the server does not trust. Check PUBLIC_URL.";
    case "INVALID_CODE":
      return "That code is not right. Check that your authenticator app's clock is correct, and try again.";
    case "INVALID_BACKUP_CODE":
      return "That backup code is not valid (each one works once).";
    case "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE":
      return "Too many wrong codes. Sign in with your password again.";
    case "INVALID_PASSWORD":
      return "The password is not right.";
    case "DISPOSABLE_EMAIL":
      return "Sign-ups from disposable e-mail addresses are not accepted. Use an address you keep.";
    case "TOO_MANY_ATTEMPTS":
      return reply.message ?? "Too many failed sign-ins for this account. Try again later.";
  }
  if (reply.status === 429) return "Too many attempts from your network. Wait a minute and try again.";
  return reply.message || "Something went wrong. Please try again.";
}

/**
 * What the sign-in page says when a provider round trip comes back with `?error=<code>` (better-auth's callback codes,
 * the provider's own OAuth codes, and ours from /sign-in/provider).
 */
export function providerErrorMessage(code: string): string {
  switch (code) {
    case "access_denied":
      return "The sign-in was cancelled or refused at the provider. Nothing was changed.";
    case "state_mismatch":
    case "state_not_found":
    case "invalid_callback_request":
    case "please_restart_the_process":
      return "This sign-in link has expired or was already used. Start again from this page.";
    // One answer whether or not an account has the address (docs/decisions/139-provider-answers-and-cookies.md);
    // account_not_linked and provider_email_unverified reach the page only from an old bookmarked link.
    case "provider_sign_in_refused":
    case "provider_email_unverified":
    case "account_not_linked":
      return "The provider could not sign you in with this address. Nothing was made or linked for this address. Verify the address with the provider and try again, or sign up with your e-mail and a password; if you already have an account, sign in with your password and link the provider on your account page.";
    case "account_already_linked_to_different_user":
      return "This provider account is already linked to another Atelier account.";
    case "email_not_found":
      return "The provider did not share an e-mail address. Allow access to your e-mail and try again.";
    case "email_does_not_match":
      return "The provider's e-mail differs from this account's: link a provider account with the same address.";
    case "signup_disabled":
    case "unable_to_create_user":
      return "No account could be made from this provider sign-in.";
    case "provider_not_configured":
      return "This sign-in provider is not configured on this server.";
    case "DISPOSABLE_EMAIL":
      return "Sign-ups from disposable e-mail addresses are not accepted. Use an address you keep.";
    case "cross_site":
      return "This sign-in was started from another site and was refused. Start again from this page.";
    case "admin_email_not_verified":
    case "ADMIN_EMAIL_NOT_VERIFIED":
      return "This administrator address signs in only once it is confirmed.";
  }
  return "The sign-in provider could not sign you in. Try again, or use your e-mail and password.";
}
