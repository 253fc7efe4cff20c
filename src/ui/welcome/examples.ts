// The workspaces a newcomer starts from: the first-run workspace (what to try first) and
// the examples of the Examples menu. Each is a set of files written into a new workspace.

export interface ExampleWorkspace {
  id: string;
  title: string;
  description: string;
  /** Path relative to /home/user → content. Scripts ending in .sh are made executable. */
  files: Record<string, string>;
  /** The file opened in the editor. */
  open: string;
}

const WELCOME_README = `# Welcome to Airlock

Everything here runs in your browser: a bash-compatible shell, about a hundred
coreutils and Python 3, all WebAssembly, in a sandbox with no network. Your files are
saved in this browser (IndexedDB) and come back after a reload.

## Try

- Press Run (or Ctrl+Enter) with hello.py open, or type in the terminal:

      python3 hello.py
      bash demo.sh
      sort -t, -k3 -n data.csv | column -s, -t
      awk -F, 'NR > 1 { total += $3 } END { print total }' data.csv

- python3 alone is Python's console (>>>); Ctrl-D leaves it.
- edit notes.md opens (or creates) a file in the editor.
- Sessions keeps restore points and exports the workspace as .tar.gz.
- Examples (toolbar) opens other workspaces; this one stays as it is.

## Off by default

- Network: nothing leaves the sandbox. Allow hosts in Settings → Network allowlist
  (the server must allow them too).
- Packages: pip install is not available; Python's standard library is.
`;

export const WELCOME: ExampleWorkspace = {
  id: 'welcome',
  title: 'Welcome',
  description: 'hello.py, demo.sh, a small data file and a README of what to try.',
  open: 'hello.py',
  files: {
    'README.md': WELCOME_README,
    'hello.py': `# Press Run (or Ctrl+Enter) to run this file with python3.
import csv
import statistics

with open("data.csv", newline="") as handle:
    rows = list(csv.DictReader(handle))

scores = [int(row["score"]) for row in rows]
print(f"Hello from Python! {len(rows)} people in data.csv")
print(f"mean score {statistics.mean(scores):.1f}, best: {max(rows, key=lambda r: int(r['score']))['name']}")
`,
    'demo.sh': `#!/bin/bash
# A tour of the shell: variables, a loop, a pipeline and a function.
greet() { printf 'Hello, %s!\\n' "$1"; }
greet "sandbox"
for n in 1 2 3; do echo "square of $n is $((n * n))"; done
echo "people by city:"
tail -n +2 data.csv | cut -d, -f2 | sort | uniq -c | sort -rn
`,
    'data.csv': `name,city,score
Ada,London,91
Grace,New York,88
Linus,Helsinki,75
Margaret,Boston,97
Alan,London,84
`,
  },
};

export const EXAMPLES: readonly ExampleWorkspace[] = [
  WELCOME,
  {
    id: 'text-processing',
    title: 'Text processing with the shell',
    description: 'A server log taken apart with grep, sort, uniq, awk and sed.',
    open: 'report.sh',
    files: {
      'access.log': [
        '10.0.0.1 GET /index.html 200 512',
        '10.0.0.2 GET /about.html 200 1024',
        '10.0.0.1 POST /login 302 0',
        '10.0.0.3 GET /missing 404 128',
        '10.0.0.2 GET /index.html 200 512',
        '10.0.0.4 GET /admin 403 64',
        '10.0.0.1 GET /index.html 304 0',
      ].join('\n') + '\n',
      'report.sh': `#!/bin/bash
# Requests per status, the busiest client, and bytes served.
echo "== requests per status"
awk '{ print $4 }' access.log | sort | uniq -c | sort -rn
echo "== busiest client"
cut -d' ' -f1 access.log | sort | uniq -c | sort -rn | head -1
echo "== bytes served"
awk '{ sum += $5 } END { print sum " bytes" }' access.log
echo "== errors"
grep -E ' (4|5)[0-9]{2} ' access.log | sed 's/^/  /'
`,
    },
  },
  {
    id: 'python-tests',
    title: 'Python with tests',
    description: 'A small module and its unittest suite: run python3 -m unittest.',
    open: 'wordcount.py',
    files: {
      'wordcount.py': `"""Counts words, ignoring case and punctuation."""
import re
from collections import Counter


def count_words(text: str) -> Counter:
    return Counter(re.findall(r"[a-z']+", text.lower()))


if __name__ == "__main__":
    import sys
    for word, n in count_words(sys.stdin.read()).most_common(5):
        print(f"{n:4} {word}")
`,
      'test_wordcount.py': `import unittest
from wordcount import count_words


class CountWords(unittest.TestCase):
    def test_ignores_case(self):
        self.assertEqual(count_words("The the THE")["the"], 3)

    def test_ignores_punctuation(self):
        self.assertEqual(count_words("hi, hi! hi.")["hi"], 3)


if __name__ == "__main__":
    unittest.main()
`,
      'README.md': 'Run the tests: `python3 -m unittest -v`\n\nCount words: `cat README.md | python3 wordcount.py`\n',
    },
  },
];

export function exampleById(id: string | null): ExampleWorkspace | undefined {
  return id === null ? undefined : EXAMPLES.find((example) => example.id === id);
}
