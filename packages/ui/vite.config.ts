import { defineConfig } from "vite";

// Relative asset URLs: the agent serves the UI under any `ui_config.content_path` and adds a <base> for it.
// JSX goes through esbuild's automatic runtime (tsconfig's jsxImportSource), so no framework plugin is needed.
export default defineConfig({
  base: "./",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    assetsDir: "assets",
    reportCompressedSize: false,
  },
  server: { proxy: { "/v1": process.env.CAIRN_HTTP_ADDR ?? "http://127.0.0.1:8500" } },
});
