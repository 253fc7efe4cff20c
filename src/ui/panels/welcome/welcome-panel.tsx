// The welcome panel: what works here, what is off by default and how to turn it on, and
// the example workspaces. Shown on the first visit; reopened from the toolbar.

import { EXAMPLES } from '../../welcome/examples.js';
import { exampleUrl } from '../../welcome/open-example.js';
import type { PanelContext } from '../panel.js';

export function WelcomePanel({ openFile, controller }: PanelContext) {
  return (
    <div className="welcome">
      <p>A sandbox in your browser: nothing you run here can reach your computer or the network.</p>
      <h3>Works here</h3>
      <ul>
        <li><strong>Shell</strong>: bash with pipes, jobs, functions; history (↑, Ctrl-R) and Tab completion.</li>
        <li><strong>Coreutils</strong>: about a hundred tools: ls, grep, sed, awk, sort, jq, tar, …</li>
        <li><strong>Python 3</strong>: scripts, <code>python3 -m unittest</code>, and its console (<code>python3</code>).</li>
        <li><strong>Persistence</strong>: files are saved in this browser and come back after a reload; restore points in Sessions.</li>
      </ul>
      <h3>Off by default</h3>
      <ul>
        <li>
          <strong>Network</strong>: no request leaves the sandbox. To allow a host, add it in{' '}
          <button className="link" onClick={() => document.getElementById('panel-settings')?.click()}>Settings</button> → Network; the server must allow it too (<code>--net-allow</code>).
        </li>
        <li>
          <strong>Packages</strong>: <code>pkg install</code> and <code>pip install</code> have no source (Python’s standard library is always there). To turn them on, give a package registry or a Python package index in{' '}
          <button className="link" onClick={() => document.getElementById('panel-settings')?.click()}>Settings</button> → Packages; see what is installed in{' '}
          <button className="link" onClick={() => document.getElementById('panel-packages')?.click()}>Packages</button>.
        </li>
      </ul>
      <h3>Start with</h3>
      <ul>
        <li><button className="link" onClick={() => openFile('/home/user/README.md')}>README.md</button>: what to try</li>
        <li><button className="link" onClick={() => openFile('/home/user/hello.py')}>hello.py</button>: press Run or Ctrl+Enter</li>
      </ul>
      <h3>Examples</h3>
      <ul className="examples">
        {EXAMPLES.map((example) => (
          <li key={example.id}>
            <a href={exampleUrl(example.id)} target="_blank" rel="noopener">
              {example.title}
            </a>
            : {example.description}
          </li>
        ))}
      </ul>
      <p className="panel-note">Examples open in a new tab as a workspace of their own; workspace “{controller.view.workspace}” stays as it is.</p>
    </div>
  );
}
