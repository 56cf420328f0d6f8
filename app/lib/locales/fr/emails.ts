import type en from "../en/emails";
import type { Messages } from "../types";

export default {
  greeting: "Bonjour,",
  verify: {
    subject: "Confirmez votre adresse e-mail pour Atelier",
    body: "Confirmez cette adresse pour finir de configurer votre compte Atelier :",
    expiry: "Le lien est valable {{hours}} heures. Si vous ne vous êtes pas inscrit, ignorez cet e-mail.",
  },
  reset: {
    subject: "Réinitialisez votre mot de passe Atelier",
    body: "Quelqu’un a demandé à réinitialiser le mot de passe de votre compte Atelier. Choisissez-en un nouveau ici :",
    expiry:
      "Le lien est valable {{hours}} heure et une seule fois. Enregistrer un nouveau mot de passe déconnecte toutes les sessions du compte et révoque les clés d’API et webhooks créés auparavant : quiconque détenait le compte le perd.",
    alsoRemoves:
      "Cela supprime aussi ses clés d’accès, sa double authentification (application d’authentification, codes de secours, appareils de confiance) et ses fournisseurs de connexion liés : seul le nouveau mot de passe permet de se connecter, et vous rajoutez ceux qui sont à vous.",
    notYou: "Si ce n’était pas vous, ignorez cet e-mail : votre mot de passe ne change pas.",
  },
  registered: {
    subject: "Vous avez déjà un compte Atelier",
    body: "Quelqu’un, peut-être vous, a essayé de créer un compte Atelier avec cette adresse, qui en a déjà un.",
    signIn: "Se connecter : {{url}}",
    forgot: "Mot de passe oublié ? {{url}}",
    notYou: "Si ce n’était pas vous, vous n’avez rien à faire.",
  },
} satisfies Messages<typeof en>;
