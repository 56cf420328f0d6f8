import type en from "../en/common";
import type { Messages } from "../types";

export default {
  brand: { home: "Início do Atelier" },
  nav: {
    main: "Principal",
    mainMenu: "Menu principal",
    menu: "Menu",
    playground: "Playground",
    pricing: "Preços",
    apiDocs: "Docs da API",
    studio: "Estúdio",
    account: "Conta",
    apiKeys: "Chaves de API",
    feedback: "Feedback",
    admin: "Admin",
    signIn: "Entrar",
    signUp: "Criar conta",
    signOut: "Sair",
    startCreating: "Começar a criar",
    skipToContent: "Pular para o conteúdo",
  },
  balance: {
    credits_one: "{{count}} crédito",
    credits_many: "{{count}} de créditos",
    credits_other: "{{count}} créditos",
    held: "· {{count}} reservados",
    label: "Saldo: {{credits}} disponíveis (créditos e check-in diário)",
    labelHeld:
      "Saldo: {{credits}} disponíveis, {{held}} reservados por tarefas em andamento (créditos e check-in diário)",
  },
  footer: { apiReference: "Referência da API", openapi: "OpenAPI" },
  language: { label: "Idioma", change: "Alterar" },
  notices: {
    "signed-out": "Você saiu da sua conta. Até logo!",
    "account-deleted": "Sua conta foi excluída e você saiu. Obrigado por usar o Atelier.",
    "password-reset":
      "Sua senha foi alterada. Entre com a nova senha. Todas as outras formas de entrar na conta foram removidas: sessões, chaves de API, webhooks, chaves de acesso, verificação em duas etapas (autenticador, códigos de backup, dispositivos confiáveis) e provedores de login vinculados; adicione de volta os que são seus.",
    "generation-started": "Geração iniciada. Ela aparece na sua galeria e se atualiza sozinha.",
    "checkout-success":
      "Obrigado! Seu pagamento foi aprovado: os créditos entram no seu saldo assim que ele for confirmado.",
    "generation-canceled": "Geração cancelada: nada foi cobrado.",
    "checkout-canceled": "Pagamento cancelado: nada foi cobrado.",
    "picture-unavailable":
      "Esse resultado não pode servir de imagem inicial (não é uma imagem pronta ou não está mais armazenado).",
  },
  errors: {
    somethingWrong: "Algo deu errado",
    unexpected: "Ocorreu um erro inesperado. Tente de novo.",
    error: "Erro",
    errorStatus: "Erro {{status}}",
    notFoundTitle: "Página não encontrada",
    notFound: "A página que você procura não existe.",
    notFoundOrNotYours: "A página que você procura não existe ou não é sua.",
    forbiddenTitle: "Acesso negado",
    forbidden: "Você não tem acesso a esta página.",
    backToStudio: "Voltar ao estúdio",
    backToAtelier: "Voltar ao Atelier",
  },
} satisfies Messages<typeof en>;
