import type en from "../en/emails";
import type { Messages } from "../types";

export default {
  greeting: "Hola:",
  verify: {
    subject: "Confirma tu correo electrónico en Atelier",
    body: "Confirma esta dirección para terminar de configurar tu cuenta de Atelier:",
    expiry: "El enlace funciona durante {{hours}} horas. Si no te has registrado, ignora este correo.",
  },
  reset: {
    subject: "Restablece tu contraseña de Atelier",
    body: "Alguien ha pedido restablecer la contraseña de tu cuenta de Atelier. Elige una nueva aquí:",
    expiry:
      "El enlace funciona durante {{hours}} hora y una sola vez. Guardar una contraseña nueva cierra todas las sesiones de la cuenta y revoca las claves de API y los webhooks creados antes: quien tuviera la cuenta la pierde.",
    alsoRemoves:
      "También elimina sus llaves de acceso, su verificación en dos pasos (app de autenticación, códigos de respaldo, dispositivos de confianza) y sus proveedores de inicio de sesión vinculados: solo la contraseña nueva da acceso, y luego vuelves a añadir los que son tuyos.",
    notYou: "Si no has sido tú, ignora este correo: tu contraseña sigue igual.",
  },
  registered: {
    subject: "Ya tienes una cuenta de Atelier",
    body: "Alguien, quizá tú, ha intentado crear una cuenta de Atelier con esta dirección, que ya tiene una.",
    signIn: "Inicia sesión: {{url}}",
    forgot: "¿Olvidaste tu contraseña? {{url}}",
    notYou: "Si no has sido tú, no tienes que hacer nada.",
  },
} satisfies Messages<typeof en>;
