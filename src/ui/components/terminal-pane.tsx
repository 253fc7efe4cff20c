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

const DARK = { background: '#1e1e1e', foreground: '#d4d4d4', cursor: '#d4d4d4', selectionBackground: '#264f78' };
const LIGHT = { background: '#ffffff', foreground: '#1e1e1e', cursor: '#1e1e1e', selectionBackground: '#add6ff', blue: '#0451a5', green: '#107c10' };

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
    // Tab completes in the terminal; Shift-Tab is left to the browser so that keyboard users
    // can move focus out of it.
    term.attachCustomKeyEventHandler((event) => !(event.key === 'Tab' && event.shiftKey));
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
