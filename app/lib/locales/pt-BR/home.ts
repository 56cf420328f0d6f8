import type en from "../en/home";
import type { Messages } from "../types";

export default {
  title: "Atelier — crie imagens e vídeos com IA",
  description:
    "Descreva uma imagem ou um clipe, escolha um modelo e veja o resultado chegar. Créditos grátis para começar.",
  badge: "10 créditos grátis ao criar a conta",
  heroBefore: "Transforme palavras em",
  heroHighlight: "imagens e vídeos",
  lead: "Descreva o que você imagina, escolha um modelo e veja o resultado chegar em segundos. Tudo fica numa só galeria: baixe, ou teste a mesma ideia em outro modelo com um clique.",
  startFree: "Comece grátis",
  signIn: "Entrar",
  examples: "Exemplos feitos no Atelier",
  samples: {
    dusk: "Montanhas violeta ao entardecer, um sol quente baixo sobre as cristas",
    coast: "Um litoral claro ao meio-dia, cabos azuis em camadas",
    aurora: "Aurora boreal sobre um vale escuro, estrelas, 16:9",
    dunes: "Dunas laranja sob um sol pálido do deserto",
    bloom: "Colinas cor-de-rosa numa névoa de sonho, estilo pôster",
    valley: "Um vale verde pela manhã, luz suave",
  },
  featuresTitle: "Tudo num só lugar",
  features: {
    models: {
      title: "Muitos modelos, um estúdio",
      text: "OpenAI, FLUX no Replicate, Kling e Runway lado a lado — compare preços e escolha a cada prompt.",
    },
    media: {
      title: "Imagens e vídeos",
      text: "Imagens em qualquer proporção e clipes curtos que tocam direto na sua galeria.",
    },
    pay: {
      title: "Pague só pelos resultados",
      text: "Créditos grátis para começar e mais um a cada dia de check-in. Uma geração que falha não custa nada.",
    },
    api: {
      title: "Uma API quando precisar",
      text: "Tudo o que o estúdio faz, seus programas fazem com uma chave de API.",
    },
  },
  ctaTitle: "Seu primeiro resultado está a um minuto",
  ctaText: "Sem cartão. Crie a conta, digite um prompt e clique em Gerar.",
  ctaButton: "Criar uma conta",
} satisfies Messages<typeof en>;
