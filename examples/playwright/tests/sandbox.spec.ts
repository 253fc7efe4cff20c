import { expect, test } from 'airlock/playwright';

test.use({ sandboxOptions: { files: { 'names.txt': 'carol\nalice\nbob\n' } } });

test('a Node sandbox per test', async ({ sandbox }) => {
  expect(await sandbox.run('sort names.txt | head -1')).toHaveOutput('alice\n');
  expect(await sandbox.run('python3 -c "print(6 * 7)"')).toHaveOutput('42\n');
});

test('a sandbox embedded in the page under test', async ({ page, embeddedSandbox }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Sorting lines' })).toBeVisible();
  const sandbox = await embeddedSandbox();
  await sandbox.writeFile('lines.txt', 'b\nc\na\n');
  expect(await sandbox.run('sort lines.txt')).toHaveOutput('a\nb\nc\n');
  expect(await sandbox.readFile('lines.txt')).toBe('b\nc\na\n');
  await expect(sandbox.frame.locator('.xterm-rows')).toContainText('sort lines.txt');
});
