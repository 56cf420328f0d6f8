import type en from "../en/feedback";
import type { Messages } from "../types";

export default {
  title: "Avis — Atelier",
  heading: "Votre avis",
  description:
    "Ce qui marche, ce qui ne marche pas, ce que vous aimeriez qu’Atelier fasse. Nous lisons chaque message.",
  sent: "Merci ! Votre avis nous est bien parvenu.",
  limited: "Vous avez envoyé beaucoup d’avis au cours de la dernière heure. Réessayez un peu plus tard.",
  label: "Votre avis",
  hint: "Jusqu’à {{max}} caractères.",
  rating: "Comment trouvez-vous Atelier jusqu’ici ?",
  stars_one: "{{count}} étoile",
  stars_many: "{{count}} d’étoiles",
  stars_other: "{{count}} étoiles",
  send: "Envoyer",
  sending: "Envoi…",
} satisfies Messages<typeof en>;
