/**
 * The account e-mails Atelier sends (plain text; the links are the point), in the recipient's language: the account's
 * (chosen at sign-up, changed with the language menu), else English. Texts: app/lib/locales/<lng>/emails.ts.
 */
import { translatorFor } from "~/lib/i18n.server";
import type { Mail } from "~/lib/mail.server";

export const VERIFY_LINK_HOURS = 24;
export const RESET_LINK_HOURS = 1;

export interface Recipient {
  email: string;
  /** The account's language (`user.language`); null or unknown: English. */
  language?: string | null;
}

// No name: whoever signs up chooses it, and the address may not be theirs (our mail would carry their words).
export function verificationMail(to: Recipient, link: string): Mail {
  const t = translatorFor(to.language);
  return {
    to: to.email,
    subject: t("emails:verify.subject"),
    text: `${t("emails:greeting")}

${t("emails:verify.body")}

${link}

${t("emails:verify.expiry", { hours: VERIFY_LINK_HOURS })}
`,
  };
}

export function resetPasswordMail(to: Recipient, link: string): Mail {
  const t = translatorFor(to.language);
  return {
    to: to.email,
    subject: t("emails:reset.subject"),
    text: `${t("emails:greeting")}

${t("emails:reset.body")}

${link}

${t("emails:reset.expiry", { hours: RESET_LINK_HOURS })}
${t("emails:reset.alsoRemoves")}

${t("emails:reset.notYou")}
`,
  };
}

/** To the owner of an address someone tried to sign up with again (sign-up itself says nothing). */
export function alreadyRegisteredMail(to: Recipient, publicUrl: string): Mail {
  const t = translatorFor(to.language);
  return {
    to: to.email,
    subject: t("emails:registered.subject"),
    text: `${t("emails:greeting")}

${t("emails:registered.body")}

${t("emails:registered.signIn", { url: `${publicUrl}/sign-in` })}
${t("emails:registered.forgot", { url: `${publicUrl}/forgot-password` })}

${t("emails:registered.notYou")}
`,
  };
}
