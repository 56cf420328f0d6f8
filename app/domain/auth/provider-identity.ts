/**
 * What a sign-in provider's word is worth (docs/decisions/138-taking-an-account-back.md): an address counts only when
 * the provider vouches for it (`email_verified`, GitHub's verified primary address). A provider sign-in that does not
 * never makes, links or signs in anything for that address; its owner verifies it with the provider, or signs up by
 * e-mail and proves the mailbox here.
 */

/** The code better-auth's provider callback redirects with when this rule refuses (`?error=…`). */
export const PROVIDER_EMAIL_UNVERIFIED = "provider_email_unverified";

/** The one code the sign-in page receives for every refused provider sign-in (taken address or free, unverified or unlinked). */
export const PROVIDER_SIGN_IN_REFUSED = "provider_sign_in_refused";

/** better-auth's `user.validateUserInfo` source, the part this rule reads. */
interface ProvisioningSource {
  method: string;
  action: string;
}

/** Refusal of a provider-supplied identity whose address the provider does not vouch for; undefined when it may go on. */
export function providerIdentityProblem(
  user: { emailVerified?: unknown },
  source: ProvisioningSource,
): { error: string; errorDescription: string } | undefined {
  const fromProvider = source.method === "oauth" || source.method.startsWith("sso-");
  if (!fromProvider || user.emailVerified === true) return undefined;
  return {
    error: PROVIDER_EMAIL_UNVERIFIED,
    errorDescription: "the provider did not confirm this e-mail address",
  };
}

/**
 * The provider callback's refusals that would tell a taken address from a free one: better-auth answers
 * `account_not_linked` only when an account with the address exists, and this rule's code only when none does.
 */
const ADDRESS_TELLING_ERRORS = new Set(["account_not_linked", PROVIDER_EMAIL_UNVERIFIED]);

/**
 * The same redirect for each of them: `?error=provider_sign_in_refused`, no description. Any other Location is
 * returned unchanged (null when the location is not such a refusal).
 */
export function neutralProviderRefusal(location: string): string | null {
  // A path ("/sign-in?error=…", the error URL a sign-in form gives) or an absolute URL: both kept as they came.
  const base = "http://relative.invalid";
  let url: URL;
  try {
    url = new URL(location, base);
  } catch {
    return null;
  }
  const code = url.searchParams.get("error");
  if (!code || !ADDRESS_TELLING_ERRORS.has(code)) return null;
  const neutral = `${url.pathname}?error=${PROVIDER_SIGN_IN_REFUSED}`;
  return url.origin === base ? neutral : `${url.origin}${neutral}`;
}
