import type en from "../en/emails";
import type { Messages } from "../types";

export default {
  greeting: "Olá,",
  verify: {
    subject: "Confirme seu e-mail no Atelier",
    body: "Confirme este endereço para terminar de configurar sua conta do Atelier:",
    expiry: "O link vale por {{hours}} horas. Se você não criou uma conta, ignore este e-mail.",
  },
  reset: {
    subject: "Redefina sua senha do Atelier",
    body: "Alguém pediu para redefinir a senha da sua conta do Atelier. Escolha uma nova aqui:",
    expiry:
      "O link vale por {{hours}} hora e só uma vez. Salvar uma nova senha encerra todas as sessões da conta e revoga as chaves de API e os webhooks criados antes: quem estava com a conta perde o acesso.",
    alsoRemoves:
      "Também remove as chaves de acesso, a verificação em duas etapas (app autenticador, códigos de backup, dispositivos confiáveis) e os provedores de login vinculados: só a nova senha dá acesso, e você adiciona de volta os que são seus.",
    notYou: "Se não foi você, ignore este e-mail: sua senha continua a mesma.",
  },
  registered: {
    subject: "Você já tem uma conta no Atelier",
    body: "Alguém, talvez você, tentou criar uma conta no Atelier com este endereço, que já tem uma.",
    signIn: "Entrar: {{url}}",
    forgot: "Esqueceu a senha? {{url}}",
    notYou: "Se não foi você, não precisa fazer nada.",
  },
} satisfies Messages<typeof en>;
