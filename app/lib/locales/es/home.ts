import type en from "../en/home";
import type { Messages } from "../types";

export default {
  title: "Atelier — crea imágenes y vídeos con IA",
  description: "Describe una imagen o un clip, elige un modelo y míralo aparecer. Créditos gratis para empezar.",
  badge: "10 créditos gratis al registrarte",
  heroBefore: "Convierte tus palabras en",
  heroHighlight: "imágenes y vídeos",
  lead: "Describe lo que imaginas, elige un modelo y tu resultado llega en segundos. Todo queda en una sola galería: descárgalo o prueba la misma idea con otro modelo en un clic.",
  startFree: "Empieza gratis",
  signIn: "Iniciar sesión",
  examples: "Ejemplos creados en Atelier",
  samples: {
    dusk: "Montañas violetas al anochecer, un sol cálido bajo sobre las crestas",
    coast: "Una costa luminosa a mediodía, cabos azules superpuestos",
    aurora: "Auroras boreales sobre un valle oscuro, estrellas, 16:9",
    dunes: "Dunas naranjas bajo un pálido sol del desierto",
    bloom: "Colinas rosas en una bruma de ensueño, estilo póster",
    valley: "Un valle verde por la mañana, luz suave",
  },
  featuresTitle: "Todo en un solo lugar",
  features: {
    models: {
      title: "Muchos modelos, un estudio",
      text: "OpenAI, FLUX en Replicate, Kling y Runway lado a lado: compara precios y elige para cada prompt.",
    },
    media: {
      title: "Imágenes y vídeos",
      text: "Imágenes en cualquier proporción y clips cortos que se reproducen en tu galería.",
    },
    pay: {
      title: "Paga solo por resultados",
      text: "Créditos gratis para empezar y uno más cada día que te registras. Una generación fallida no cuesta nada.",
    },
    api: {
      title: "Una API cuando la necesites",
      text: "Todo lo que hace el estudio, tus programas pueden hacerlo con una clave de API.",
    },
  },
  ctaTitle: "Tu primer resultado está a un minuto",
  ctaText: "Sin tarjeta. Regístrate, escribe un prompt y pulsa Generar.",
  ctaButton: "Crear una cuenta",
} satisfies Messages<typeof en>;
