import type en from "../en/forms";
import type { Messages } from "../types";

export default {
  field: {
    enterName: "Escribe tu nombre",
    max100: "Como máximo 100 caracteres",
    oneLine: "Una sola línea, sin caracteres de control",
    email: "Escribe un correo electrónico válido",
    min8: "Al menos 8 caracteres",
    max128: "Como máximo 128 caracteres",
    enterPassword: "Escribe tu contraseña",
    linkIncomplete: "Este enlace está incompleto. Pide uno nuevo.",
    passwordsDiffer: "Las dos contraseñas no coinciden",
  },
  auth: {
    exists: "Ya existe una cuenta con este correo. Inicia sesión.",
    wrongPassword: "El correo o la contraseña no son correctos.",
    notVerified: "Primero confirma tu correo: te hemos enviado un enlace nuevo.",
    tooShort: "La contraseña es demasiado corta (al menos 8 caracteres).",
    tooLong: "La contraseña es demasiado larga (como máximo 128 caracteres).",
    badLink: "Este enlace no es válido o ha caducado. Pide uno nuevo.",
    disposable: "No se aceptan registros con correos desechables. Usa una dirección que conserves.",
    tooMany: "Demasiados intentos desde tu red. Espera un minuto y vuelve a intentarlo.",
  },
} satisfies Messages<typeof en>;
