// What a side panel is. Panels plug into the playground through one list (index.ts); each
// lives in its own folder (src/ui/panels/<id>/) and exports one PanelDefinition. The
// playground gives every panel a toolbar toggle, a frame (heading, close button, focus on
// open) and this context; the panel renders only its content.

import type { ComponentType } from 'react';
import type { PlaygroundController, PlaygroundView } from '../playground/controller.js';

export interface PanelContext {
  controller: PlaygroundController;
  /** The playground's state as React renders it (re-rendered on every change). */
  view: PlaygroundView;
  /** Closes this panel (after an action that ends its use, such as Apply). */
  close(): void;
  /** Opens a file of the sandbox in the editor. */
  openFile(path: string): void;
}

export interface PanelDefinition {
  /** Unique, kebab-case: the toggle is `#panel-<id>`, the frame has data-panel="<id>". */
  id: string;
  /** The toggle's label and the panel's heading. */
  title: string;
  /** Whether the toggle is enabled now (default: once the sandbox is ready). */
  enabled?(view: PlaygroundView): boolean;
  component: ComponentType<PanelContext>;
}
