import type en from "../en/common";
import type { Messages } from "../types";

export default {
  brand: { home: "Inicio de Atelier" },
  nav: {
    main: "Principal",
    mainMenu: "Menú principal",
    menu: "Menú",
    playground: "Playground",
    pricing: "Precios",
    apiDocs: "Docs de la API",
    studio: "Estudio",
    account: "Cuenta",
    apiKeys: "Claves de API",
    feedback: "Comentarios",
    admin: "Admin",
    signIn: "Iniciar sesión",
    signUp: "Registrarse",
    signOut: "Cerrar sesión",
    startCreating: "Empezar a crear",
    skipToContent: "Saltar al contenido",
  },
  balance: {
    credits_one: "{{count}} crédito",
    credits_many: "{{count}} de créditos",
    credits_other: "{{count}} créditos",
    held: "· {{count}} retenidos",
    label: "Saldo: {{credits}} disponibles (créditos y registro diario)",
    labelHeld: "Saldo: {{credits}} disponibles, {{held}} retenidos por tareas en curso (créditos y registro diario)",
  },
  footer: { apiReference: "Referencia de la API", openapi: "OpenAPI" },
  language: { label: "Idioma", change: "Cambiar" },
  notices: {
    "signed-out": "Has cerrado sesión. ¡Hasta pronto!",
    "account-deleted": "Tu cuenta se ha eliminado y has cerrado sesión. Gracias por usar Atelier.",
    "password-reset":
      "Tu contraseña se ha cambiado. Inicia sesión con la nueva. Todas las demás formas de entrar en la cuenta han desaparecido: sesiones, claves de API, webhooks, llaves de acceso, verificación en dos pasos (autenticador, códigos de respaldo, dispositivos de confianza) y proveedores vinculados; vuelve a añadir los que son tuyos.",
    "generation-started": "Generación iniciada. Aparecerá en tu galería y se actualizará sola.",
    "checkout-success": "¡Gracias! Tu pago se ha realizado: los créditos llegarán a tu saldo en cuanto se confirme.",
    "generation-canceled": "Generación cancelada: no se ha cobrado nada.",
    "checkout-canceled": "Pago cancelado: no se ha cobrado nada.",
    "picture-unavailable":
      "Ese resultado no puede servir como imagen de partida (no es una imagen terminada o ya no está guardada).",
  },
  errors: {
    somethingWrong: "Algo ha salido mal",
    unexpected: "Se ha producido un error inesperado. Vuelve a intentarlo.",
    error: "Error",
    errorStatus: "Error {{status}}",
    notFoundTitle: "Página no encontrada",
    notFound: "La página que buscas no existe.",
    notFoundOrNotYours: "La página que buscas no existe o no es tuya.",
    forbiddenTitle: "Acceso denegado",
    forbidden: "No tienes acceso a esta página.",
    backToStudio: "Volver al estudio",
    backToAtelier: "Volver a Atelier",
  },
} satisfies Messages<typeof en>;
