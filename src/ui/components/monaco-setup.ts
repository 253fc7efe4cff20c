// Monaco, bundled locally (the page CSP is default-src 'self'): the editor core, its
// standard contributions, and only the languages the playground highlights. Loaded lazily
// so that the terminal's prompt does not wait for it.

import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/features/register.all';
import 'monaco-editor/languages/definitions/shell/register';
import 'monaco-editor/languages/definitions/python/register';
import 'monaco-editor/languages/definitions/javascript/register';
import 'monaco-editor/languages/definitions/markdown/register';
import 'monaco-editor/languages/definitions/yaml/register';
import 'monaco-editor/languages/features/json/register';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/languages/features/json/json.worker?worker';

(self as unknown as { MonacoEnvironment: monaco.Environment }).MonacoEnvironment = {
  getWorker: (_workerId: string, label: string) => (label === 'json' ? new JsonWorker() : new EditorWorker()),
};

// CSV has no Monaco grammar: a small one colours separators and quoted fields.
monaco.languages.register({ id: 'csv', extensions: ['.csv'] });
monaco.languages.setMonarchTokensProvider('csv', {
  tokenizer: {
    root: [
      [/"([^"]|"")*"/, 'string'],
      [/,/, 'delimiter'],
      [/-?\d+(\.\d+)?(?=,|$)/, 'number'],
    ],
  },
});

const LANGUAGES: Record<string, string> = {
  sh: 'shell',
  bash: 'shell',
  py: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  json: 'json',
  md: 'markdown',
  markdown: 'markdown',
  yaml: 'yaml',
  yml: 'yaml',
  csv: 'csv',
};

export function languageFor(path: string): string {
  const extension = /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  return LANGUAGES[extension] ?? 'plaintext';
}

export { monaco };

// Monaco's themes with line numbers and comments that meet WCAG AA on the editor's
// background (the built-in dimmed numbers and vs-dark's comments do not).
monaco.editor.defineTheme('airlock-light', { base: 'vs', inherit: true, rules: [], colors: { 'editorLineNumber.foreground': '#5f6b7a', 'editorLineNumber.dimmedForeground': '#5f6b7a', 'editorLineNumber.activeForeground': '#1e1e1e' } });
monaco.editor.defineTheme('airlock-dark', { base: 'vs-dark', inherit: true, rules: [{ token: 'comment', foreground: '7ca668' }], colors: { 'editorLineNumber.foreground': '#a0a8b4', 'editorLineNumber.dimmedForeground': '#a0a8b4', 'editorLineNumber.activeForeground': '#e5e7eb' } });
