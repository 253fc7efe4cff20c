// The terminal: an xterm.js Terminal sized to its box, running a TerminalSession over the
// host the parent gives (the playground controller, or the embed's sandbox).

import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { TerminalSession, type ShellHost } from '../terminal/terminal-session.js';

interface TerminalPaneProps {
  host: ShellHost | null;
  history: readonly string[];
  dark: boolean;
  greeting?: string;
  /** Receives the session once it exists (the Run button types into it). */
  onSession?: (session: TerminalSession | null) => void;
  /** A fixed height in rows (the embed); otherwise the terminal fills its box. */
  rows?: number;
  /** Focus the terminal on load (the playground; not an embed among others). */
  autoFocus?: boolean;
}

// ANSI palettes whose colours all reach WCAG AA (4.5:1) on the terminal's background, bold
// (bright) ones included: xterm's defaults put bright green on white at about 1.6:1.
const DARK = {
  background: '#1e1e1e', foreground: '#d4d4d4', cursor: '#d4d4d4', selectionBackground: '#264f78',
  black: '#6b7280', red: '#f87171', green: '#4ade80', yellow: '#facc15', blue: '#60a5fa', magenta: '#e879f9', cyan: '#22d3ee', white: '#d4d4d4',
  brightBlack: '#9ca3af', brightRed: '#fca5a5', brightGreen: '#86efac', brightYellow: '#fde047', brightBlue: '#93c5fd', brightMagenta: '#f0abfc', brightCyan: '#67e8f9', brightWhite: '#ffffff',
};
const LIGHT = {
  background: '#ffffff', foreground: '#1e1e1e', cursor: '#1e1e1e', selectionBackground: '#add6ff',
  black: '#1e1e1e', red: '#b91c1c', green: '#15803d', yellow: '#854d0e', blue: '#1d4ed8', magenta: '#a21caf', cyan: '#0e7490', white: '#4b5563',
  brightBlack: '#4b5563', brightRed: '#991b1b', brightGreen: '#166534', brightYellow: '#713f12', brightBlue: '#1e40af', brightMagenta: '#86198f', brightCyan: '#155e75', brightWhite: '#374151',
};

export function TerminalPane({ host, history, dark, greeting, onSession, rows, autoFocus = true }: TerminalPaneProps) {
  const box = useRef<HTMLDivElement>(null);
  const terminal = useRef<Terminal | null>(null);
  const typedEarly = useRef<string[]>([]);
  /** Whether a session is reading the keys (otherwise they are kept for the next one). */
  const hasSession = useRef(false);

  // The terminal exists before the sandbox does: keys typed early are kept for the prompt.
  useEffect(() => {
    if (box.current === null) return undefined;
    const term = new Terminal({ convertEol: true, cursorBlink: true, fontSize: 13, fontFamily: 'ui-monospace, Menlo, Consolas, monospace', scrollback: 5000, theme: dark ? DARK : LIGHT, rows: rows ?? 24 });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(box.current);
    // Keys the browser handles rather than the terminal: Shift-Tab moves focus out (Tab
    // completes); Ctrl+V pastes like Ctrl+Shift+V (the browser's paste event reaches xterm,
    // which sends the text); Ctrl+C with a selection copies it instead of interrupting.
    term.attachCustomKeyEventHandler((event) => {
      if (event.key === 'Tab' && event.shiftKey) return false;
      const plainCtrl = event.ctrlKey && !event.altKey && !event.metaKey;
      if (plainCtrl && !event.shiftKey && (event.key === 'v' || event.key === 'V')) return false;
      if (plainCtrl && (event.key === 'c' || event.key === 'C') && term.hasSelection()) {
        if (event.type === 'keydown') {
          const text = term.getSelection();
          void navigator.clipboard?.writeText(text).catch(() => undefined);
          term.clearSelection();
        }
        event.preventDefault();
        return false;
      }
      return true;
    });
    const early = term.onData((data) => {
      if (!hasSession.current) typedEarly.current.push(data);
    });
    // Fit once layout has settled, and again whenever the box changes size.
    const refit = (): void => {
      if (rows === undefined && box.current !== null && box.current.clientHeight > 0) fit.fit();
    };
    requestAnimationFrame(refit);
    const observer = new ResizeObserver(refit);
    observer.observe(box.current);
    terminal.current = term;
    term.write('Starting the sandbox…');
    if (autoFocus) term.focus();
    return () => {
      early.dispose();
      observer.disconnect();
      term.dispose();
      terminal.current = null;
    };
  }, []);

  useEffect(() => {
    if (terminal.current !== null) terminal.current.options.theme = dark ? DARK : LIGHT;
  }, [dark]);

  useEffect(() => {
    const term = terminal.current;
    if (term === null || host === null) return undefined;
    term.write('\r\x1b[K');
    const session = new TerminalSession(term, host, history);
    hasSession.current = true;
    session.start(greeting ?? '');
    const typed = typedEarly.current.join('');
    typedEarly.current = [];
    if (typed) term.input(typed, false);
    onSession?.(session);
    return () => {
      hasSession.current = false;
      // A line half-typed when the sandbox is replaced goes on in the next session.
      const line = session.typedLine;
      if (line) typedEarly.current.unshift(line);
      onSession?.(null);
      session.dispose();
    };
  }, [host]);

  return <div className="terminal" ref={box} data-testid="terminal" aria-label="Terminal" />;
}
