// The account e-mails (app/domain/auth/emails.ts), in the recipient's language (the account's, set at sign-up).
export default {
  greeting: "Hello,",
  verify: {
    subject: "Confirm your e-mail address for Atelier",
    body: "Confirm this address to finish setting up your Atelier account:",
    expiry: "The link works for {{hours}} hours. If you did not sign up, ignore this e-mail.",
  },
  reset: {
    subject: "Reset your Atelier password",
    body: "Someone asked to reset the password of your Atelier account. Choose a new one here:",
    // Line breaks as the mail has always been wrapped (plain text, 72-ish columns).
    expiry:
      "The link works for {{hours}} hour and only once. Saving a new password signs out every session of the\naccount and revokes its API keys and webhooks made before: whoever held the account loses it.",
    alsoRemoves:
      "It also removes its passkeys, its two-factor (authenticator app, backup codes,\ntrusted devices) and its linked sign-in providers: only the new password signs\nin, and you add back the ones that are yours.",
    notYou: "If it was not you, ignore this e-mail: your password stays as it is.",
  },
  registered: {
    subject: "You already have an Atelier account",
    body: "Someone, maybe you, tried to create an Atelier account with this address, which already has one.",
    signIn: "Sign in: {{url}}",
    forgot: "Forgot your password? {{url}}",
    notYou: "If it was not you, you need not do anything.",
  },
};
