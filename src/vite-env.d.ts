/// <reference types="vite/client" />

declare module 'virtual:airlock-wasm' {
  import type { WasmManifest } from './host/browser/platform.js';
  /** public/wasm/manifest.json, each module with the URL the page fetches it from (scripts/wasm-assets-plugin.ts). */
  const manifest: WasmManifest;
  export default manifest;
}
