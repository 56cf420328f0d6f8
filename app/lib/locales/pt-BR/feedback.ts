import type en from "../en/feedback";
import type { Messages } from "../types";

export default {
  title: "Feedback — Atelier",
  heading: "Feedback",
  description:
    "O que funciona, o que não funciona, o que você gostaria que o Atelier fizesse. Lemos todas as mensagens.",
  sent: "Obrigado! Recebemos seu feedback.",
  limited: "Você enviou muito feedback na última hora. Tente de novo um pouco mais tarde.",
  label: "Seu feedback",
  hint: "Até {{max}} caracteres.",
  rating: "O que você está achando do Atelier?",
  stars_one: "{{count}} estrela",
  stars_many: "{{count}} de estrelas",
  stars_other: "{{count}} estrelas",
  send: "Enviar feedback",
  sending: "Enviando…",
} satisfies Messages<typeof en>;
