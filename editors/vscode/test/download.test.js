// The server download of download.js, offline: the asset chosen for each platform is one
// the release workflow builds, and an archive packed as the workflow packs it is fetched
// (through a redirect, from a local HTTP server) and unpacked to a runnable binary.
// Run: `node --test editors/vscode/test/` (molang/cli/tests/lsp_vscode.rs does when node is there).
const assert = require('assert');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { test } = require('node:test');
const download = require('../download');

const manifest = require('../package.json');
const workflow = fs.readFileSync(
  path.join(__dirname, '../../../.github/workflows/release.yml'),
  'utf8'
);
const built = [...workflow.matchAll(/target: ([\w-]+),/g)].map((m) => m[1]);

test('every platform with a release build gets its own asset', () => {
  const platforms = [
    ['linux', 'x64'],
    ['linux', 'arm64'],
    ['darwin', 'x64'],
    ['darwin', 'arm64'],
    ['win32', 'x64'],
    ['win32', 'arm64'],
  ];
  const targets = platforms.map(([p, a]) => download.target(p, a));
  assert.deepStrictEqual([...targets].sort(), [...built].sort());
  const a = download.asset('1.2.3', 'linux', 'x64');
  assert.deepStrictEqual(a, {
    folder: 'molang-v1.2.3-x86_64-unknown-linux-gnu',
    archive: 'molang-v1.2.3-x86_64-unknown-linux-gnu.tar.gz',
    binary: 'molang',
  });
  const w = download.asset('1.2.3', 'win32', 'arm64');
  assert.strictEqual(w.archive, 'molang-v1.2.3-aarch64-pc-windows-msvc.zip');
  assert.strictEqual(w.binary, 'molang.exe');
  assert.strictEqual(download.asset('1.2.3', 'freebsd', 'x64'), undefined);
  assert.strictEqual(download.asset('1.2.3', 'linux', 'ia32'), undefined);
});

test('the URL is the release of the extension version in the repository', () => {
  const m = /github\.com\/([^/]+)\/([^/.]+)/.exec(manifest.repository.url);
  assert.ok(m, manifest.repository.url);
  assert.strictEqual(
    download.downloadUrl(manifest, 'darwin', 'arm64'),
    `https://github.com/${m[1]}/${m[2]}/releases/download/v${manifest.version}/molang-v${manifest.version}-aarch64-apple-darwin.tar.gz`
  );
  assert.strictEqual(download.downloadUrl(manifest, 'sunos', 'x64'), undefined);
  assert.strictEqual(download.downloadUrl({ version: '1.0.0' }, 'linux', 'x64'), undefined);
});

test('an archive packed as the release workflow packs it is fetched and unpacked', async (t) => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'molang-download-'));
  t.after(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const a = download.asset(manifest.version, 'linux', 'x64');
  // As the workflow's Package step: the binary and README.md in a folder, tar czf.
  const src = path.join(scratch, 'src');
  fs.mkdirSync(path.join(src, a.folder), { recursive: true });
  fs.writeFileSync(path.join(src, a.folder, 'molang'), '#!/bin/sh\necho molang 0\n');
  fs.writeFileSync(path.join(src, a.folder, 'README.md'), 'readme');
  execFileSync('tar', ['czf', a.archive, a.folder], { cwd: src });
  const bytes = fs.readFileSync(path.join(src, a.archive));
  const server = http.createServer((req, res) => {
    if (req.url === '/latest') {
      res.writeHead(302, { Location: `/files/${a.archive}` });
      res.end();
    } else if (req.url === `/files/${a.archive}`) {
      res.writeHead(200);
      res.end(bytes);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${server.address().port}`;
  const storage = path.join(scratch, 'storage');
  const binary = await download.install(manifest, storage, 'linux', 'x64', `${base}/latest`);
  assert.strictEqual(
    binary,
    download.installedPath(storage, manifest.version, 'linux', 'x64')
  );
  assert.strictEqual(fs.readFileSync(binary, 'utf8'), '#!/bin/sh\necho molang 0\n');
  if (process.platform !== 'win32') {
    assert.ok(fs.statSync(binary).mode & 0o100, 'executable');
  }
  // The archive itself is not kept.
  assert.ok(!fs.existsSync(path.join(storage, 'server', a.archive)));
  // A missing asset is an error that says what was asked for.
  await assert.rejects(
    download.install(manifest, path.join(scratch, 'other'), 'linux', 'x64', `${base}/nothing`),
    /answered HTTP 404/
  );
});
