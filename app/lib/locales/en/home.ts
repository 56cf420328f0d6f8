// The home page (app/routes/home.tsx).
export default {
  title: "Atelier — create images and videos with AI",
  description: "Describe a picture or a clip, pick a model, and watch it arrive. Free credits to start.",
  badge: "10 free credits when you sign up",
  heroBefore: "Turn words into",
  heroHighlight: "images and videos",
  lead: "Describe what you imagine, choose a model, and watch your result arrive in seconds. Keep everything in one gallery, download it, and try the same idea on another model with one click.",
  startFree: "Start creating — it’s free",
  signIn: "Sign in",
  examples: "Examples made in Atelier",
  samples: {
    dusk: "Violet mountains at dusk, a warm sun low over the ridges",
    coast: "A bright coastline at noon, layered blue headlands",
    aurora: "Northern lights over a dark valley, stars, 16:9",
    dunes: "Orange dunes under a pale desert sun",
    bloom: "Pink hills in a dreamlike haze, poster style",
    valley: "A green valley in the morning, soft light",
  },
  featuresTitle: "Everything in one place",
  features: {
    models: {
      title: "Many models, one studio",
      text: "OpenAI, FLUX on Replicate, Kling and Runway side by side — compare prices and pick per prompt.",
    },
    media: {
      title: "Images and videos",
      text: "Stills in any aspect ratio and short clips that play right in your gallery.",
    },
    pay: {
      title: "Pay for results only",
      text: "Free credits to start and one more every day you check in. A failed generation costs nothing.",
    },
    api: {
      title: "An API when you need it",
      text: "Everything the studio does, your programs can do with an API key.",
    },
  },
  ctaTitle: "Your first result is a minute away",
  ctaText: "No card needed. Sign up, type a prompt, press Generate.",
  ctaButton: "Create an account",
};
