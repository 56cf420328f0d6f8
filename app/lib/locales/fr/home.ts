import type en from "../en/home";
import type { Messages } from "../types";

export default {
  title: "Atelier — créez des images et des vidéos avec l’IA",
  description:
    "Décrivez une image ou un clip, choisissez un modèle et regardez-le apparaître. Crédits offerts pour commencer.",
  badge: "10 crédits offerts à l’inscription",
  heroBefore: "Changez vos mots en",
  heroHighlight: "images et vidéos",
  lead: "Décrivez ce que vous imaginez, choisissez un modèle, et votre résultat arrive en quelques secondes. Tout reste dans une seule galerie : téléchargez-le, ou essayez la même idée sur un autre modèle en un clic.",
  startFree: "Commencer gratuitement",
  signIn: "Se connecter",
  examples: "Exemples créés dans Atelier",
  samples: {
    dusk: "Montagnes violettes au crépuscule, un soleil chaud bas sur les crêtes",
    coast: "Une côte lumineuse à midi, des caps bleus en couches",
    aurora: "Aurores boréales au-dessus d’une vallée sombre, étoiles, 16:9",
    dunes: "Dunes orange sous un pâle soleil du désert",
    bloom: "Collines roses dans une brume onirique, style affiche",
    valley: "Une vallée verte au matin, lumière douce",
  },
  featuresTitle: "Tout au même endroit",
  features: {
    models: {
      title: "De nombreux modèles, un seul studio",
      text: "OpenAI, FLUX sur Replicate, Kling et Runway côte à côte : comparez les prix et choisissez pour chaque prompt.",
    },
    media: {
      title: "Images et vidéos",
      text: "Des images dans tous les formats et de courts clips qui se lisent directement dans votre galerie.",
    },
    pay: {
      title: "Ne payez que les résultats",
      text: "Des crédits offerts pour commencer, et un de plus chaque jour où vous passez. Une génération ratée ne coûte rien.",
    },
    api: {
      title: "Une API quand il le faut",
      text: "Tout ce que fait le studio, vos programmes peuvent le faire avec une clé d’API.",
    },
  },
  ctaTitle: "Votre premier résultat est à une minute",
  ctaText: "Pas de carte bancaire. Inscrivez-vous, tapez un prompt, appuyez sur Générer.",
  ctaButton: "Créer un compte",
} satisfies Messages<typeof en>;
