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
    case "TOO_MANY_ATTEMPTS":
      return reply.message ?? "Too many failed sign-ins for this account. Try again later.";
  }
  if (reply.status === 429) return "Too many attempts from your network. Wait a minute and try again.";
  return reply.message || "Something went wrong. Please try again.";
}
