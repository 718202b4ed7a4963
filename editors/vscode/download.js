// Fetches the `molang` server from this repository's GitHub release when the extension
// carries none and none is configured or on PATH: the archive the release workflow
// (.github/workflows/release.yml) builds for this platform and architecture, of the
// extension's own version. No dependency on `vscode`, so that node can test it alone.
const fs = require('fs');
const http = require('http');
const https = require('https');
const path = require('path');
const { execFileSync } = require('child_process');

// The Rust target the release workflow builds for a Node platform and architecture.
const TARGETS = {
  'linux-x64': 'x86_64-unknown-linux-gnu',
  'linux-arm64': 'aarch64-unknown-linux-gnu',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
  'win32-x64': 'x86_64-pc-windows-msvc',
  'win32-arm64': 'aarch64-pc-windows-msvc',
};

function target(platform, arch) {
  return TARGETS[`${platform}-${arch}`];
}

// The release asset for `version` (the extension's, without `v`), or undefined when the
// release has no build for this platform: `molang-v0.1.0-x86_64-unknown-linux-gnu.tar.gz`
// (a `.zip` on Windows), holding the folder of the same name with the binary in it.
function asset(version, platform, arch) {
  const t = target(platform, arch);
  if (!t) {
    return undefined;
  }
  const folder = `molang-v${version}-${t}`;
  const archive = `${folder}${platform === 'win32' ? '.zip' : '.tar.gz'}`;
  const binary = platform === 'win32' ? 'molang.exe' : 'molang';
  return { folder, archive, binary };
}

// `https://github.com/OWNER/REPO` from package.json's repository field.
function repositoryUrl(manifest) {
  const repo = manifest.repository;
  const url = typeof repo === 'string' ? repo : repo && repo.url;
  if (!url) {
    return undefined;
  }
  const m = /github\.com[/:]([^/]+)\/([^/.]+)/.exec(url);
  return m ? `https://github.com/${m[1]}/${m[2]}` : undefined;
}

function downloadUrl(manifest, platform, arch) {
  const a = asset(manifest.version, platform, arch);
  const repo = repositoryUrl(manifest);
  if (!a || !repo) {
    return undefined;
  }
  return `${repo}/releases/download/v${manifest.version}/${a.archive}`;
}

// GET `url` into the file `dest`, following GitHub's redirects to its storage.
function fetchTo(url, dest, redirects = 5) {
  const lib = url.startsWith('http:') ? http : https;
  return new Promise((resolve, reject) => {
    lib
      .get(url, { headers: { 'User-Agent': 'molang-vscode' } }, (res) => {
        if ([301, 302, 303, 307, 308].includes(res.statusCode) && res.headers.location) {
          res.resume();
          if (redirects === 0) {
            reject(new Error(`too many redirects from ${url}`));
            return;
          }
          fetchTo(new URL(res.headers.location, url).toString(), dest, redirects - 1).then(
            resolve,
            reject
          );
          return;
        }
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`${url} answered HTTP ${res.statusCode}`));
          return;
        }
        const out = fs.createWriteStream(dest);
        res.pipe(out);
        out.on('finish', () => out.close(() => resolve()));
        out.on('error', reject);
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

// Unpacks `archive` into `dir` with the system's `tar` (bsdtar on Windows 10 and later
// reads zip archives too) and returns the binary's path.
function unpack(archive, dir, a) {
  execFileSync('tar', ['-xf', archive, '-C', dir], { stdio: 'ignore' });
  const binary = path.join(dir, a.folder, a.binary);
  if (!fs.existsSync(binary)) {
    throw new Error(`${path.basename(archive)} holds no ${a.folder}/${a.binary}`);
  }
  fs.chmodSync(binary, 0o755);
  return binary;
}

// Where a downloaded server of `version` lives under `storage` (the extension's global
// storage folder), whether or not it is there yet.
function installedPath(storage, version, platform, arch) {
  const a = asset(version, platform, arch);
  return a && path.join(storage, 'server', a.folder, a.binary);
}

// Downloads and unpacks the server for this platform under `storage`; its path. Throws
// with a message for the user when the platform has no build or the download fails.
// `url` is the release asset's unless given (tests serve the archive locally).
async function install(
  manifest,
  storage,
  platform = process.platform,
  arch = process.arch,
  url = downloadUrl(manifest, platform, arch)
) {
  const a = asset(manifest.version, platform, arch);
  if (!a || !url) {
    throw new Error(`no release build of the server for ${platform}-${arch}`);
  }
  const dir = path.join(storage, 'server');
  fs.mkdirSync(dir, { recursive: true });
  const archive = path.join(dir, a.archive);
  try {
    await fetchTo(url, archive);
    return unpack(archive, dir, a);
  } finally {
    fs.rmSync(archive, { force: true });
  }
}

module.exports = { target, asset, repositoryUrl, downloadUrl, unpack, installedPath, install };
