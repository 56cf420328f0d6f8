import type en from "../en/emails";
import type { Messages } from "../types";

export default {
  greeting: "Hallo,",
  verify: {
    subject: "Bestätige deine E-Mail-Adresse für Atelier",
    body: "Bestätige diese Adresse, um dein Atelier-Konto fertig einzurichten:",
    expiry: "Der Link gilt {{hours}} Stunden. Wenn du dich nicht registriert hast, ignoriere diese E-Mail.",
  },
  reset: {
    subject: "Setze dein Atelier-Passwort zurück",
    body: "Jemand möchte das Passwort deines Atelier-Kontos zurücksetzen. Wähle hier ein neues:",
    expiry:
      "Der Link gilt {{hours}} Stunde und nur einmal. Wenn du ein neues Passwort speicherst, werden alle Sitzungen des Kontos abgemeldet und die bisher erstellten API-Schlüssel und Webhooks widerrufen: Wer auch immer das Konto hatte, verliert es.",
    alsoRemoves:
      "Außerdem werden seine Passkeys, die Zwei-Faktor-Anmeldung (Authenticator-App, Backup-Codes, vertrauenswürdige Geräte) und verknüpfte Anmeldeanbieter entfernt: Nur das neue Passwort meldet an, und du fügst deine eigenen wieder hinzu.",
    notYou: "Warst du es nicht, ignoriere diese E-Mail: Dein Passwort bleibt, wie es ist.",
  },
  registered: {
    subject: "Du hast schon ein Atelier-Konto",
    body: "Jemand, vielleicht du, wollte mit dieser Adresse ein Atelier-Konto erstellen – zu ihr gibt es schon eines.",
    signIn: "Anmelden: {{url}}",
    forgot: "Passwort vergessen? {{url}}",
    notYou: "Warst du es nicht, musst du nichts tun.",
  },
} satisfies Messages<typeof en>;
