import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [tailwindcss(), reactRouter()],
  publicDir: "app/public",
  resolve: { tsconfigPaths: true },
  ssr: { external: ["bun:sqlite", "bun"] },
  optimizeDeps: {
    exclude: ["better-auth", "drizzle-orm", "ai", "@ai-sdk/openai"],
  },
  build: { target: "es2022" },
});
