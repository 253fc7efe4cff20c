// A draggable, keyboard-operable separator between two panes (WAI-ARIA window splitter):
// drag it, or focus it and use the arrow keys (Shift for bigger steps), Home/End, and Enter
// to collapse or restore the pane it sizes. The size is kept in localStorage by `id`.

import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';

export interface SplitState {
  size: number;
  collapsed: boolean;
}

/** A pane size (px) kept per `id` in this browser, with its collapsed flag. */
export function usePaneSize(id: string, initial: number): [SplitState, (next: SplitState) => void] {
  const key = `airlock-pane:${id}`;
  const [state, setState] = useState<SplitState>(() => {
    try {
      const stored = JSON.parse(localStorage.getItem(key) ?? 'null') as SplitState | null;
      if (stored !== null && typeof stored.size === 'number' && typeof stored.collapsed === 'boolean') return stored;
    } catch {
      // Nothing stored, or not readable: the initial size.
    }
    return { size: initial, collapsed: false };
  });
  const update = (next: SplitState): void => {
    setState(next);
    try {
      localStorage.setItem(key, JSON.stringify(next));
    } catch {
      // Not kept: the size lasts for this page.
    }
  };
  return [state, update];
}

interface SplitterProps {
  /** Sizes the pane before it (`'before'`) or after it (`'after'`). */
  sizes: 'before' | 'after';
  orientation: 'vertical' | 'horizontal';
  label: string;
  /** The id of the pane it sizes (aria-controls). */
  controls: string;
  state: SplitState;
  onChange: (next: SplitState) => void;
  min: number;
  max: number;
}

export function Splitter({ sizes, orientation, label, controls, state, onChange, min, max }: SplitterProps) {
  const start = useRef<{ pointer: number; size: number } | null>(null);
  const [dragging, setDragging] = useState(false);
  const clamp = (value: number): number => Math.round(Math.max(min, Math.min(max, value)));
  const vertical = orientation === 'vertical';

  useEffect(() => {
    if (!dragging) return undefined;
    const previous = document.body.style.userSelect;
    document.body.style.userSelect = 'none';
    return () => {
      document.body.style.userSelect = previous;
    };
  }, [dragging]);

  const onPointerDown = (event: PointerEvent<HTMLDivElement>): void => {
    event.currentTarget.setPointerCapture(event.pointerId);
    start.current = { pointer: vertical ? event.clientX : event.clientY, size: state.collapsed ? 0 : state.size };
    setDragging(true);
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>): void => {
    if (start.current === null) return;
    const delta = (vertical ? event.clientX : event.clientY) - start.current.pointer;
    const size = start.current.size + (sizes === 'before' ? delta : -delta);
    // Dragged below half the minimum: collapsed; the size it had is kept for restoring.
    if (size < min / 2) onChange({ size: state.size, collapsed: true });
    else onChange({ size: clamp(size), collapsed: false });
  };
  const onPointerUp = (): void => {
    start.current = null;
    setDragging(false);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const step = event.shiftKey ? 80 : 16;
    const grow = vertical ? (sizes === 'before' ? 'ArrowRight' : 'ArrowLeft') : sizes === 'before' ? 'ArrowDown' : 'ArrowUp';
    const shrink = vertical ? (sizes === 'before' ? 'ArrowLeft' : 'ArrowRight') : sizes === 'before' ? 'ArrowUp' : 'ArrowDown';
    if (event.key === grow) onChange({ size: clamp((state.collapsed ? min : state.size) + step), collapsed: false });
    else if (event.key === shrink) onChange(state.size - step < min ? { size: state.size, collapsed: true } : { size: clamp(state.size - step), collapsed: false });
    else if (event.key === 'Home') onChange({ size: min, collapsed: false });
    else if (event.key === 'End') onChange({ size: max, collapsed: false });
    else if (event.key === 'Enter') onChange({ size: state.size, collapsed: !state.collapsed });
    else return;
    event.preventDefault();
  };

  return (
    <div
      role="separator"
      tabIndex={0}
      aria-label={label}
      aria-controls={controls}
      aria-orientation={orientation}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={state.collapsed ? 0 : state.size}
      className={`splitter ${orientation}${dragging ? ' dragging' : ''}`}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onDoubleClick={() => onChange({ size: state.size, collapsed: !state.collapsed })}
      onKeyDown={onKeyDown}
      title={`${label}: drag, or arrow keys; Enter or double-click collapses`}
    />
  );
}
