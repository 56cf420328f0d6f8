import type en from "../en/common";
import type { Messages } from "../types";

export default {
  brand: { home: "Accueil Atelier" },
  nav: {
    main: "Navigation principale",
    mainMenu: "Menu principal",
    menu: "Menu",
    playground: "Playground",
    pricing: "Tarifs",
    apiDocs: "Doc de l’API",
    studio: "Studio",
    account: "Compte",
    apiKeys: "Clés d’API",
    feedback: "Avis",
    admin: "Admin",
    signIn: "Se connecter",
    signUp: "S’inscrire",
    signOut: "Se déconnecter",
    startCreating: "Commencer",
    skipToContent: "Aller au contenu",
  },
  balance: {
    credits_one: "{{count}} crédit",
    credits_many: "{{count}} de crédits",
    credits_other: "{{count}} crédits",
    held: "· {{count}} réservés",
    label: "Solde : {{credits}} disponibles (crédits et check-in quotidien)",
    labelHeld:
      "Solde : {{credits}} disponibles, {{held}} réservés par des tâches en cours (crédits et check-in quotidien)",
  },
  footer: { apiReference: "Référence de l’API", openapi: "OpenAPI" },
  language: { label: "Langue", change: "Changer" },
  notices: {
    "signed-out": "Vous êtes déconnecté. À bientôt !",
    "account-deleted": "Votre compte est supprimé et vous êtes déconnecté. Merci d’avoir utilisé Atelier.",
    "password-reset":
      "Votre mot de passe a été modifié. Connectez-vous avec le nouveau. Tous les autres accès au compte ont disparu : sessions, clés d’API, webhooks, clés d’accès, double authentification (application, codes de secours, appareils de confiance) et fournisseurs de connexion liés ; rajoutez ceux qui sont à vous.",
    "generation-started": "Génération lancée. Elle apparaît dans votre galerie et se met à jour toute seule.",
    "checkout-success":
      "Merci ! Votre paiement est passé : les crédits arrivent sur votre solde dès qu’il est confirmé.",
    "generation-canceled": "Génération annulée : rien n’a été facturé.",
    "checkout-canceled": "Paiement annulé : rien n’a été facturé.",
    "picture-unavailable":
      "Ce résultat ne peut pas servir d’image de départ (image inachevée, ou qui n’est plus conservée).",
  },
  errors: {
    somethingWrong: "Un problème est survenu",
    unexpected: "Une erreur inattendue s’est produite. Veuillez réessayer.",
    error: "Erreur",
    errorStatus: "Erreur {{status}}",
    notFoundTitle: "Page introuvable",
    notFound: "La page demandée n’existe pas.",
    notFoundOrNotYours: "La page demandée n’existe pas, ou elle ne vous appartient pas.",
    forbiddenTitle: "Accès refusé",
    forbidden: "Vous n’avez pas accès à cette page.",
    backToStudio: "Retour au studio",
    backToAtelier: "Retour à Atelier",
  },
} satisfies Messages<typeof en>;
