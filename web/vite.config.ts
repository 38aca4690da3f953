// Builds the dashboard into web/dist; the Chute server serves it (src/http/dashboard.ts). `npm run dev:web` serves it
// with hot reload and sends /api, the share links and the public pages to a Chute server on port 3000.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const chute = process.env.CHUTE_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: import.meta.dirname,
  // public/assets/ (the icon) lands next to the hashed assets: the server serves everything under /assets/.
  publicDir: 'public',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    chunkSizeWarningLimit: 1500,
    sourcemap: false,
  },
  server: {
    proxy: Object.fromEntries(['/api', '/u', '/raw', '/view', '/go', '/folder'].map((p) => [p, chute])),
  },
});
