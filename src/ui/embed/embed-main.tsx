// embed.html's entry: reads the URL parameters, starts a sandbox (persisted only with
// persist=1), and renders the embed.
//   ?origins=https://docs.example.com   who may send requests (default: the embedding page)
//   &file=hello.sh&content=...           an editor for one file, with its initial content
//   &command=ls                          run once ready
//   &rows=12                             terminal height in rows
//   &persist=1&id=intro                  keep the workspace in this browser (IndexedDB)

import { createRoot } from 'react-dom/client';
import { PlaygroundController } from '../playground/controller.js';
import '../styles.css';
import './embed.css';
import { EmbedApp, type EmbedConfig } from './embed-app.js';
import { allowedOrigins } from './protocol.js';

const params = new URLSearchParams(location.search);
const ancestor = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins?.[0];
const config: EmbedConfig = {
  origins: allowedOrigins(params.get('origins'), ancestor),
  editorFile: params.get('file'),
  rows: Math.max(3, Math.min(60, Number(params.get('rows') ?? 12) || 12)),
  command: params.get('command'),
};
const file = params.get('file');
const content = params.get('content');
const controller = new PlaygroundController({
  workspace: `embed:${params.get('id') ?? 'default'}`,
  persist: params.get('persist') === '1',
  initialFiles: file !== null && content !== null ? { [file]: content } : undefined,
});
(window as unknown as { airlock: unknown }).airlock = { sandbox: controller.ready, controller };
createRoot(document.getElementById('root') as HTMLElement).render(<EmbedApp controller={controller} config={config} />);
void controller.start();
