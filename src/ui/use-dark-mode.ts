// Follows the system's light/dark preference.

import { useEffect, useState } from 'react';

export function useDarkMode(): boolean {
  const query = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined;
  const [dark, setDark] = useState(query?.matches ?? false);
  useEffect(() => {
    if (query === undefined) return undefined;
    const onChange = (event: MediaQueryListEvent): void => setDark(event.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return dark;
}
