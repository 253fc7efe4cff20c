// The theme: the system's light/dark preference, or a choice kept in this browser
// (localStorage 'airlock-theme'). The choice is put on <html data-theme> so the CSS
// variables of styles.css follow it.

import { useEffect, useState } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'airlock-theme';

function storedChoice(): ThemeChoice {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

function systemDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

/** Whether the page is dark now, the user's choice, and how to change it. */
export function useTheme(): { dark: boolean; choice: ThemeChoice; setChoice: (choice: ThemeChoice) => void } {
  const [choice, setChoiceState] = useState<ThemeChoice>(storedChoice);
  const [system, setSystem] = useState(systemDark);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return undefined;
    const query = matchMedia('(prefers-color-scheme: dark)');
    const onChange = (event: MediaQueryListEvent): void => setSystem(event.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  const dark = choice === 'system' ? system : choice === 'dark';
  useEffect(() => {
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  }, [dark]);
  const setChoice = (next: ThemeChoice): void => {
    setChoiceState(next);
    try {
      if (next === 'system') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, next);
    } catch {
      // Storage refused (private mode): the choice lasts for this page.
    }
  };
  return { dark, choice, setChoice };
}

/** Only whether the page is dark (the embed, which has no switch). */
export function useDarkMode(): boolean {
  return useTheme().dark;
}
