// A minimal page that runs commands in a sandbox (the playground replaces it). It is also
// what the browser tests drive: window.airlock exposes the sandbox to Playwright.

import { Sandbox } from '../host/browser/index.js';

const root = document.getElementById('root') as HTMLElement;
root.innerHTML = `
  <main style="font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto">
    <h1>Airlock</h1>
    <p id="status">Starting the sandbox…</p>
    <form id="form" style="display:flex; gap:.5rem">
      <label for="command" style="position:absolute; left:-9999px">Command</label>
      <input id="command" style="flex:1; font-family:monospace" value="true" autocomplete="off" />
      <button id="run" type="submit" disabled>Run</button>
    </form>
    <pre id="output" style="background:#111; color:#eee; padding:1rem; min-height:10rem; white-space:pre-wrap"></pre>
  </main>`;

const status = document.getElementById('status') as HTMLElement;
const form = document.getElementById('form') as HTMLFormElement;
const input = document.getElementById('command') as HTMLInputElement;
const button = document.getElementById('run') as HTMLButtonElement;
const output = document.getElementById('output') as HTMLElement;

const ready = Sandbox.create();
(window as unknown as { airlock: { sandbox: Promise<Sandbox> } }).airlock = { sandbox: ready };

ready.then(
  (sandbox) => {
    status.textContent = `Ready: ${sandbox.installedTools.length} tools. Cross-origin isolated: ${String(globalThis.crossOriginIsolated)}.`;
    button.disabled = false;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      output.textContent = '';
      button.disabled = true;
      sandbox
        .run(input.value, {
          onStdout: (text) => (output.textContent += text),
          onStderr: (text) => (output.textContent += text),
        })
        .then((result) => {
          output.textContent += `\n[exit ${result.exitCode}${result.errorClass ? `, ${result.errorClass}` : ''}]`;
          output.dataset.exitCode = String(result.exitCode);
        })
        .catch((error: unknown) => {
          output.textContent += `\n[error: ${error instanceof Error ? error.message : String(error)}]`;
        })
        .finally(() => {
          button.disabled = false;
        });
    });
  },
  (error: unknown) => {
    status.textContent = `The sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`;
  },
);
