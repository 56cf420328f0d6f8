/** The account e-mails Atelier sends (plain text; the links are the point). */
import type { Mail } from "~/lib/mail.server";

export const VERIFY_LINK_HOURS = 24;
export const RESET_LINK_HOURS = 1;

// No name: whoever signs up chooses it, and the address may not be theirs (our mail would carry their words).
const GREETING = "Hello,";

export function verificationMail(to: { email: string }, link: string): Mail {
  return {
    to: to.email,
    subject: "Confirm your e-mail address for Atelier",
    text: `${GREETING}

Confirm this address to finish setting up your Atelier account:

${link}

The link works for ${VERIFY_LINK_HOURS} hours. If you did not sign up, ignore this e-mail.
`,
  };
}

export function resetPasswordMail(to: { email: string }, link: string): Mail {
  return {
    to: to.email,
    subject: "Reset your Atelier password",
    text: `${GREETING}

Someone asked to reset the password of your Atelier account. Choose a new one here:

${link}

The link works for ${RESET_LINK_HOURS} hour and only once. Saving a new password signs out every session of the
account and revokes its API keys and webhooks made before: whoever held the account loses it.
It also removes its passkeys, its two-factor (authenticator app, backup codes,
trusted devices) and its linked sign-in providers: only the new password signs
in, and you add back the ones that are yours.

If it was not you, ignore this e-mail: your password stays as it is.
`,
  };
}

/** To the owner of an address someone tried to sign up with again (sign-up itself says nothing). */
export function alreadyRegisteredMail(to: { email: string }, publicUrl: string): Mail {
  return {
    to: to.email,
    subject: "You already have an Atelier account",
    text: `${GREETING}

Someone, maybe you, tried to create an Atelier account with this address, which already has one.

Sign in: ${publicUrl}/sign-in
Forgot your password? ${publicUrl}/forgot-password

If it was not you, you need not do anything.
`,
  };
}
