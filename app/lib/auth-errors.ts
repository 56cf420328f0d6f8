/** A person-readable message for a better-auth error thrown from auth.api.* */
export function authErrorMessage(error: unknown): string {
  const e = error as { body?: { code?: string; message?: string }; message?: string; status?: number | string };
  const code = e?.body?.code;
  switch (code) {
    case "USER_ALREADY_EXISTS":
    case "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL":
      return "An account with this email already exists. Sign in instead.";
    case "INVALID_EMAIL_OR_PASSWORD":
      return "Email or password is incorrect.";
    case "PASSWORD_TOO_SHORT":
      return "The password is too short (at least 8 characters).";
    case "PASSWORD_TOO_LONG":
      return "The password is too long (at most 128 characters).";
    case "INVALID_ORIGIN":
      return "This page was opened from an address the server does not trust. Check PUBLIC_URL.";
  }
  return e?.body?.message || "Something went wrong. Please try again.";
}
