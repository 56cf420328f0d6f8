/** The provider-identity rule (docs/decisions/138, 139): only a vouched address counts; refusals answer alike. */
import { describe, expect, test } from "bun:test";
import {
  neutralProviderRefusal,
  PROVIDER_EMAIL_UNVERIFIED,
  providerIdentityProblem,
} from "~/domain/auth/provider-identity";

describe("providerIdentityProblem", () => {
  const oauth = (action: string) => ({ method: "oauth", action });

  test("a provider's unvouched address is refused at create, link and sign-in", () => {
    for (const action of ["create-user", "link-account", "sign-in"]) {
      expect(providerIdentityProblem({ emailVerified: false }, oauth(action))?.error).toBe(PROVIDER_EMAIL_UNVERIFIED);
      expect(providerIdentityProblem({}, oauth(action))?.error).toBe(PROVIDER_EMAIL_UNVERIFIED);
      // Only a real true counts: a string or a number is not the provider's word.
      expect(providerIdentityProblem({ emailVerified: "true" }, oauth(action))?.error).toBe(PROVIDER_EMAIL_UNVERIFIED);
      expect(providerIdentityProblem({ emailVerified: 1 }, oauth(action))?.error).toBe(PROVIDER_EMAIL_UNVERIFIED);
      expect(providerIdentityProblem({ emailVerified: true }, oauth(action))).toBeUndefined();
    }
    expect(
      providerIdentityProblem({ emailVerified: false }, { method: "sso-oidc", action: "create-user" }),
    ).toBeDefined();
  });

  test("an e-mail sign-up (its address proven by our own mail) is not this rule's", () => {
    expect(providerIdentityProblem({ emailVerified: false }, { method: "email-password", action: "create-user" })).toBe(
      undefined,
    );
  });
});

describe("neutralProviderRefusal", () => {
  test("a taken address's and an unvouched one's redirects become the same, descriptions dropped", () => {
    const taken = neutralProviderRefusal("/sign-in?error=account_not_linked");
    const free = neutralProviderRefusal(`/sign-in?error=${PROVIDER_EMAIL_UNVERIFIED}&error_description=the+provider`);
    expect(taken).toBe("/sign-in?error=provider_sign_in_refused");
    expect(free).toBe(taken!);
    expect(neutralProviderRefusal("https://atelier.example/sign-in?error=account_not_linked")).toBe(
      "https://atelier.example/sign-in?error=provider_sign_in_refused",
    );
  });

  test("every other redirect is left alone", () => {
    expect(neutralProviderRefusal("/sign-in?error=access_denied")).toBeNull();
    expect(neutralProviderRefusal("/studio")).toBeNull();
    expect(neutralProviderRefusal("/sign-in?error=")).toBeNull();
  });
});
