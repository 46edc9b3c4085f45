import { defineConfig } from "vite";

// Tauri loads http://localhost:1420 in dev mode (src-tauri/tauri.conf.json `devUrl`) and the
// embedded `dist/` otherwise, so the port is fixed and the output dir is what Tauri embeds.
export default defineConfig({
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  build: { target: "es2021", outDir: "dist", emptyOutDir: true },
});
