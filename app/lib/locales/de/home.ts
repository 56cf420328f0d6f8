import type en from "../en/home";
import type { Messages } from "../types";

export default {
  title: "Atelier — Bilder und Videos mit KI erstellen",
  description:
    "Beschreibe ein Bild oder einen Clip, wähle ein Modell und sieh zu, wie es entsteht. Mit Gratis-Credits zum Start.",
  badge: "10 Gratis-Credits bei der Registrierung",
  heroBefore: "Aus Worten werden",
  heroHighlight: "Bilder und Videos",
  lead: "Beschreibe, was dir vorschwebt, wähle ein Modell, und in Sekunden ist dein Ergebnis da. Alles liegt in einer Galerie: herunterladen oder dieselbe Idee mit einem Klick auf einem anderen Modell ausprobieren.",
  startFree: "Kostenlos loslegen",
  signIn: "Anmelden",
  examples: "Beispiele, in Atelier erstellt",
  samples: {
    dusk: "Violette Berge in der Abenddämmerung, eine warme Sonne tief über den Graten",
    coast: "Eine helle Küste am Mittag, gestaffelte blaue Landzungen",
    aurora: "Polarlichter über einem dunklen Tal, Sterne, 16:9",
    dunes: "Orange Dünen unter einer blassen Wüstensonne",
    bloom: "Rosa Hügel in traumhaftem Dunst, im Posterstil",
    valley: "Ein grünes Tal am Morgen, weiches Licht",
  },
  featuresTitle: "Alles an einem Ort",
  features: {
    models: {
      title: "Viele Modelle, ein Studio",
      text: "OpenAI, FLUX auf Replicate, Kling und Runway nebeneinander – Preise vergleichen und je Prompt wählen.",
    },
    media: {
      title: "Bilder und Videos",
      text: "Standbilder in jedem Seitenverhältnis und kurze Clips, die direkt in der Galerie laufen.",
    },
    pay: {
      title: "Nur für Ergebnisse zahlen",
      text: "Gratis-Credits zum Start und jeden Tag einer mehr beim Check-in. Eine fehlgeschlagene Generierung kostet nichts.",
    },
    api: {
      title: "Eine API, wenn du sie brauchst",
      text: "Alles, was das Studio kann, können deine Programme mit einem API-Schlüssel auch.",
    },
  },
  ctaTitle: "Dein erstes Ergebnis ist eine Minute entfernt",
  ctaText: "Keine Karte nötig. Registrieren, Prompt eingeben, auf „Generieren“ drücken.",
  ctaButton: "Konto erstellen",
} satisfies Messages<typeof en>;
