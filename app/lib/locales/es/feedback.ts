import type en from "../en/feedback";
import type { Messages } from "../types";

export default {
  title: "Comentarios — Atelier",
  heading: "Comentarios",
  description: "Qué funciona, qué no y qué te gustaría que hiciera Atelier. Leemos todos los mensajes.",
  sent: "¡Gracias! Hemos recibido tus comentarios.",
  limited: "Has enviado muchos comentarios en la última hora. Vuelve a intentarlo un poco más tarde.",
  label: "Tus comentarios",
  hint: "Hasta {{max}} caracteres.",
  rating: "¿Qué te parece Atelier hasta ahora?",
  stars_one: "{{count}} estrella",
  stars_many: "{{count}} de estrellas",
  stars_other: "{{count}} estrellas",
  send: "Enviar comentarios",
  sending: "Enviando…",
} satisfies Messages<typeof en>;
