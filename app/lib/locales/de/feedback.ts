import type en from "../en/feedback";
import type { Messages } from "../types";

export default {
  title: "Feedback — Atelier",
  heading: "Feedback",
  description: "Was funktioniert, was nicht, was Atelier deiner Meinung nach können sollte. Wir lesen jede Nachricht.",
  sent: "Danke! Dein Feedback ist angekommen.",
  limited: "Du hast in der letzten Stunde viel Feedback geschickt. Versuche es bitte etwas später noch einmal.",
  label: "Dein Feedback",
  hint: "Bis zu {{max}} Zeichen.",
  rating: "Wie gefällt dir Atelier bisher?",
  stars_one: "{{count}} Stern",
  stars_other: "{{count}} Sterne",
  send: "Feedback senden",
  sending: "Wird gesendet …",
} satisfies Messages<typeof en>;
