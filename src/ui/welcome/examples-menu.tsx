// The toolbar's Examples menu: each example opens as a new workspace in a new tab.

import { useEffect, useRef, useState } from 'react';
import { EXAMPLES } from './examples.js';
import { exampleUrl } from './open-example.js';

export function ExamplesMenu() {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return undefined;
    const close = (event: Event): void => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);
  return (
    <div className="menu" ref={root}>
      <button id="examples-menu" aria-haspopup="true" aria-expanded={open} onClick={() => setOpen(!open)}>
        Examples ▾
      </button>
      {open ? (
        <ul className="menu-list" aria-label="Example workspaces">
          {EXAMPLES.map((example) => (
            <li key={example.id}>
              <a href={exampleUrl(example.id)} target="_blank" rel="noopener" onClick={() => setOpen(false)}>
                <strong>{example.title}</strong>
                <span>{example.description}</span>
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
