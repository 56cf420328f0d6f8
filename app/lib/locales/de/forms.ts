import type en from "../en/forms";
import type { Messages } from "../types";

export default {
  field: {
    enterName: "Gib deinen Namen ein",
    max100: "Höchstens 100 Zeichen",
    oneLine: "Eine Zeile, ohne Steuerzeichen",
    email: "Gib eine gültige E-Mail-Adresse ein",
    min8: "Mindestens 8 Zeichen",
    max128: "Höchstens 128 Zeichen",
    enterPassword: "Gib dein Passwort ein",
    linkIncomplete: "Dieser Link ist unvollständig. Fordere einen neuen an.",
    passwordsDiffer: "Die beiden Passwörter stimmen nicht überein",
  },
  auth: {
    exists: "Zu dieser E-Mail gibt es schon ein Konto. Melde dich stattdessen an.",
    wrongPassword: "E-Mail oder Passwort ist falsch.",
    notVerified: "Bestätige zuerst deine E-Mail-Adresse: Wir haben dir einen neuen Link geschickt.",
    tooShort: "Das Passwort ist zu kurz (mindestens 8 Zeichen).",
    tooLong: "Das Passwort ist zu lang (höchstens 128 Zeichen).",
    badLink: "Dieser Link ist ungültig oder abgelaufen. Fordere einen neuen an.",
    disposable: "Registrierungen mit Wegwerf-Adressen werden nicht angenommen. Nutze eine Adresse, die du behältst.",
    tooMany: "Zu viele Versuche aus deinem Netzwerk. Warte eine Minute und versuche es dann noch einmal.",
  },
} satisfies Messages<typeof en>;
