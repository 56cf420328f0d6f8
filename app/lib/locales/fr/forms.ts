import type en from "../en/forms";
import type { Messages } from "../types";

export default {
  field: {
    enterName: "Saisissez votre nom",
    max100: "100 caractères au maximum",
    oneLine: "Une seule ligne, sans caractères de contrôle",
    email: "Saisissez une adresse e-mail valide",
    min8: "Au moins 8 caractères",
    max128: "128 caractères au maximum",
    enterPassword: "Saisissez votre mot de passe",
    linkIncomplete: "Ce lien est incomplet. Demandez-en un nouveau.",
    passwordsDiffer: "Les deux mots de passe ne correspondent pas",
  },
  auth: {
    exists: "Un compte existe déjà avec cet e-mail. Connectez-vous plutôt.",
    wrongPassword: "E-mail ou mot de passe incorrect.",
    notVerified: "Confirmez d’abord votre adresse e-mail : nous vous avons envoyé un nouveau lien.",
    tooShort: "Le mot de passe est trop court (au moins 8 caractères).",
    tooLong: "Le mot de passe est trop long (128 caractères au maximum).",
    badLink: "Ce lien est invalide ou a expiré. Demandez-en un nouveau.",
    disposable:
      "Les inscriptions avec une adresse e-mail jetable ne sont pas acceptées. Utilisez une adresse que vous gardez.",
    tooMany: "Trop de tentatives depuis votre réseau. Patientez une minute et réessayez.",
  },
} satisfies Messages<typeof en>;
