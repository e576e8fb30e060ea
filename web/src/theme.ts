import { useEffect, useState } from 'preact/hooks';

export type Theme = 'light' | 'dark';

const THEME_KEY = 'remgraph.theme';
const systemDark = matchMedia('(prefers-color-scheme: dark)');

const stored = (): Theme | null => {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : null;
};

/**
 * The page's theme: the system's `prefers-color-scheme` (followed live) until the user picks one
 * with the toggle, which is remembered. Sets `data-theme` on <html>, which the stylesheet reads.
 */
export function useTheme(): [Theme, () => void] {
  const [chosen, setChosen] = useState<Theme | null>(stored);
  const [system, setSystem] = useState<Theme>(systemDark.matches ? 'dark' : 'light');
  useEffect(() => {
    const onChange = (e: MediaQueryListEvent) => setSystem(e.matches ? 'dark' : 'light');
    systemDark.addEventListener('change', onChange);
    // The system may have switched between the first render and this effect (it runs after paint).
    setSystem(systemDark.matches ? 'dark' : 'light');
    return () => systemDark.removeEventListener('change', onChange);
  }, []);
  const theme = chosen ?? system;
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const toggle = () => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    // Picking the system's own theme goes back to following the system.
    if (next === system) localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, next);
    setChosen(next === system ? null : next);
  };
  return [theme, toggle];
}
