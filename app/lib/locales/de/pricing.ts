import type en from "../en/pricing";
import type { Messages } from "../types";

export default {
  title: "Preise — Atelier",
  heading: "Preise",
  description:
    "Kaufe ein Credit-Paket (ein Jahr gültig) oder abonniere frische Credits für jeden Zeitraum. Credits werden nur verbraucht, wenn eine Generierung fertig ist.",
  needMore:
    "Diese Generierung braucht {{need}} Credits, verfügbar sind {{available}}. Lade unten auf, um weiterzumachen.",
  simulated:
    "Zahlungen werden auf diesem Server simuliert (kein Stripe-Schlüssel eingerichtet): Der Kauf wird abgeschlossen, ohne dass jemand belastet wird.",
  canceledSimulated: "Abo gekündigt (simuliert).",
  balance: "Dein Guthaben",
  available: "Verfügbar",
  held: "Für laufende Aufgaben reserviert",
  plan: "Tarif",
  standardPlan: "Standard",
  manage: "Abo verwalten",
  cancelSimulated: "Abo kündigen (simuliert)",
  packs: "Credit-Pakete",
  subscriptions: "Abos",
  bestValue: "Bester Preis",
  interval: { month: "Monat", year: "Jahr" },
  perInterval: " / {{interval}}",
  creditsEvery_one: "{{count, number}} Credit pro {{interval}}",
  creditsEvery_other: "{{count, number}} Credits pro {{interval}}",
  creditsYear_one: "{{count, number}} Credit, 1 Jahr gültig",
  creditsYear_other: "{{count, number}} Credits, 1 Jahr gültig",
  perCredit: "{{price}} pro Credit",
  images_one: "{{count, number}} Bild",
  images_other: "{{count, number}} Bilder",
  videos_one: "{{count, number}} Video",
  videos_other: "{{count, number}} Videos",
  or: " oder ",
  typical: " zu üblichen Preisen",
  current: "Dein aktueller Tarif",
  subscribe: "{{name}} abonnieren",
  buy: "{{name}} kaufen",
  signInToBuy: "Zum Kaufen anmelden",
} satisfies Messages<typeof en>;
