import type en from "../en/forms";
import type { Messages } from "../types";

export default {
  field: {
    enterName: "Informe seu nome",
    max100: "No máximo 100 caracteres",
    oneLine: "Uma linha, sem caracteres de controle",
    email: "Informe um e-mail válido",
    min8: "Pelo menos 8 caracteres",
    max128: "No máximo 128 caracteres",
    enterPassword: "Informe sua senha",
    linkIncomplete: "Este link está incompleto. Peça um novo.",
    passwordsDiffer: "As duas senhas não coincidem",
  },
  auth: {
    exists: "Já existe uma conta com este e-mail. Entre com ela.",
    wrongPassword: "E-mail ou senha incorretos.",
    notVerified: "Confirme seu e-mail primeiro: enviamos um novo link para você.",
    tooShort: "A senha é curta demais (pelo menos 8 caracteres).",
    tooLong: "A senha é longa demais (no máximo 128 caracteres).",
    badLink: "Este link é inválido ou expirou. Peça um novo.",
    disposable: "Não aceitamos cadastros com e-mails descartáveis. Use um endereço que você mantém.",
    tooMany: "Muitas tentativas a partir da sua rede. Espere um minuto e tente de novo.",
  },
} satisfies Messages<typeof en>;
