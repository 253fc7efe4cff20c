// The frame around the open side panel: a labelled region with its heading (focused when the
// panel opens, so keyboard users land in it) and a close button.

import { useEffect, useId, useRef } from 'react';
import type { PanelContext, PanelDefinition } from './panel.js';

export function PanelFrame({ panel, context }: { panel: PanelDefinition; context: PanelContext }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const headingId = useId();
  useEffect(() => heading.current?.focus(), [panel.id]);
  const Content = panel.component;
  return (
    <aside className="panel" aria-labelledby={headingId} data-panel={panel.id}>
      <div className="panel-head">
        <h2 id={headingId} tabIndex={-1} ref={heading}>
          {panel.title}
        </h2>
        <button className="icon" aria-label={`Close ${panel.title}`} title="Close" onClick={context.close}>
          ×
        </button>
      </div>
      <Content {...context} />
    </aside>
  );
}
