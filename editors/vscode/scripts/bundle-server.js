// Copies a built `molang` executable into server/ so that `vsce package` ships it:
//   cargo build --release -p molang-cli
//   npm run bundle-server -- ../../target/release/molang
//   npx @vscode/vsce package --target linux-x64   (the platform the binary was built for)
const fs = require('fs');
const path = require('path');

const from = process.argv[2];
if (!from || !fs.existsSync(from)) {
  console.error('usage: npm run bundle-server -- PATH/TO/molang (build it with `cargo build --release -p molang-cli`)');
  process.exit(2);
}
const name = process.platform === 'win32' || from.endsWith('.exe') ? 'molang.exe' : 'molang';
const dir = path.join(__dirname, '..', 'server');
fs.mkdirSync(dir, { recursive: true });
const to = path.join(dir, name);
fs.copyFileSync(from, to);
fs.chmodSync(to, 0o755);
console.log(`bundled ${from} as ${path.relative(process.cwd(), to)}`);
