// Form field errors and sign-in answers as pages show them (app/http/form-messages.ts maps the English originals).
export default {
  field: {
    enterName: "Enter your name",
    max100: "At most 100 characters",
    oneLine: "One line, without control characters",
    email: "Enter a valid email address",
    min8: "At least 8 characters",
    max128: "At most 128 characters",
    enterPassword: "Enter your password",
    linkIncomplete: "This link is incomplete. Ask for a new one.",
    passwordsDiffer: "The two passwords differ",
  },
  auth: {
    exists: "An account with this email already exists. Sign in instead.",
    wrongPassword: "Email or password is incorrect.",
    notVerified: "Confirm your e-mail address first: we have sent you a new link.",
    tooShort: "The password is too short (at least 8 characters).",
    tooLong: "The password is too long (at most 128 characters).",
    badLink: "This link is invalid or has expired. Ask for a new one.",
    disposable: "Sign-ups from disposable e-mail addresses are not accepted. Use an address you keep.",
    tooMany: "Too many attempts from your network. Wait a minute and try again.",
  },
};
