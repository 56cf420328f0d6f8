import type en from "../en/common";
import type { Messages } from "../types";

export default {
  brand: { home: "Atelier-Startseite" },
  nav: {
    main: "Hauptnavigation",
    mainMenu: "Hauptmenü",
    menu: "Menü",
    playground: "Playground",
    pricing: "Preise",
    apiDocs: "API-Doku",
    studio: "Studio",
    account: "Konto",
    apiKeys: "API-Schlüssel",
    feedback: "Feedback",
    admin: "Admin",
    signIn: "Anmelden",
    signUp: "Registrieren",
    signOut: "Abmelden",
    startCreating: "Loslegen",
    skipToContent: "Zum Inhalt springen",
  },
  balance: {
    credits_one: "{{count}} Credit",
    credits_other: "{{count}} Credits",
    held: "· {{count}} reserviert",
    label: "Guthaben: {{credits}} verfügbar (Credits und täglicher Check-in)",
    labelHeld:
      "Guthaben: {{credits}} verfügbar, {{held}} für laufende Aufgaben reserviert (Credits und täglicher Check-in)",
  },
  footer: { apiReference: "API-Referenz", openapi: "OpenAPI" },
  language: { label: "Sprache", change: "Ändern" },
  notices: {
    "signed-out": "Du bist abgemeldet. Bis bald!",
    "account-deleted": "Dein Konto ist gelöscht und du bist abgemeldet. Danke, dass du Atelier genutzt hast.",
    "password-reset":
      "Dein Passwort wurde geändert. Melde dich mit dem neuen an. Alle anderen Wege ins Konto sind weg: Sitzungen, API-Schlüssel, Webhooks, Passkeys, Zwei-Faktor-Anmeldung (Authenticator, Backup-Codes, vertrauenswürdige Geräte) und verknüpfte Anmeldeanbieter; füge deine eigenen wieder hinzu.",
    "generation-started": "Die Generierung läuft. Sie erscheint in deiner Galerie und aktualisiert sich von selbst.",
    "checkout-success":
      "Danke! Deine Zahlung ist eingegangen: Die Credits landen auf deinem Guthaben, sobald sie bestätigt ist.",
    "generation-canceled": "Generierung abgebrochen: Es wurde nichts berechnet.",
    "checkout-canceled": "Bezahlvorgang abgebrochen: Es wurde nichts berechnet.",
    "picture-unavailable":
      "Dieses Ergebnis taugt nicht als Ausgangsbild (kein fertiges Bild oder nicht mehr gespeichert).",
  },
  errors: {
    somethingWrong: "Etwas ist schiefgelaufen",
    unexpected: "Ein unerwarteter Fehler ist aufgetreten. Bitte versuche es noch einmal.",
    error: "Fehler",
    errorStatus: "Fehler {{status}}",
    notFoundTitle: "Seite nicht gefunden",
    notFound: "Die gesuchte Seite gibt es nicht.",
    notFoundOrNotYours: "Die gesuchte Seite gibt es nicht, oder sie gehört dir nicht.",
    forbiddenTitle: "Kein Zugriff",
    forbidden: "Du hast keinen Zugriff auf diese Seite.",
    backToStudio: "Zurück zum Studio",
    backToAtelier: "Zurück zu Atelier",
  },
} satisfies Messages<typeof en>;
