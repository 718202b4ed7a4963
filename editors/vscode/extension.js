// Starts `molang lsp` for the JSON files of the open pack folders (resource and behaviour
// packs). Activates only in a workspace holding a pack `manifest.json`.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');
const download = require('./download');

let client;

function onPath(command) {
  const r = spawnSync(command, ['--version'], { stdio: 'ignore', timeout: 10000 });
  return !r.error && r.status === 0;
}

// The server: `molang.server.path` when set, else the binary bundled in server/, else
// `molang` on PATH, else the release binary downloaded before, else (when
// `molang.server.download` allows) the release binary downloaded now.
async function serverCommand(context) {
  const settings = vscode.workspace.getConfiguration('molang');
  const configured = settings.get('server.path');
  if (configured) {
    return configured;
  }
  const bundled = path.join(
    context.extensionPath,
    'server',
    process.platform === 'win32' ? 'molang.exe' : 'molang'
  );
  if (fs.existsSync(bundled)) {
    return bundled;
  }
  if (onPath('molang')) {
    return 'molang';
  }
  const manifest = context.extension.packageJSON;
  const storage = context.globalStorageUri.fsPath;
  const installed = download.installedPath(
    storage,
    manifest.version,
    process.platform,
    process.arch
  );
  if (installed && fs.existsSync(installed)) {
    return installed;
  }
  if (settings.get('server.download') === false) {
    return 'molang';
  }
  const url = download.downloadUrl(manifest, process.platform, process.arch);
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Molang: downloading the language server ${manifest.version} (${url})`,
    },
    () => download.install(manifest, storage)
  );
}

async function start(context) {
  let command;
  try {
    command = await serverCommand(context);
  } catch (err) {
    return failed(context, 'molang', `the download failed: ${message(err)}`);
  }
  const serverOptions = {
    run: { command, args: ['lsp'], transport: TransportKind.stdio },
    debug: { command, args: ['lsp'], transport: TransportKind.stdio },
  };
  const settings = vscode.workspace.getConfiguration('molang');
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'json' },
      { scheme: 'file', language: 'jsonc' },
    ],
    initializationOptions: {
      showLowerLayerDiagnostics: settings.get('diagnostics.showLowerLayers') === true,
    },
  };
  client = new LanguageClient('molang', 'Molang', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    client = undefined;
    return failed(context, command, message(err));
  }
}

function message(err) {
  return err && err.message ? err.message : String(err);
}

// Says why the server could not start, with the two ways out.
async function failed(context, command, why) {
  const choice = await vscode.window.showErrorMessage(
    `Molang: the language server \`${command} lsp\` could not start (${why}). ` +
      'Install it (`cargo install --path molang/cli`, or a release archive on PATH) or set `molang.server.path`, then restart it.',
    'Open Settings',
    'Restart'
  );
  if (choice === 'Open Settings') {
    vscode.commands.executeCommand('workbench.action.openSettings', 'molang.server');
  } else if (choice === 'Restart') {
    vscode.commands.executeCommand('molang.restartServer');
  }
}

async function restart(context) {
  if (client) {
    const old = client;
    client = undefined;
    try {
      await old.stop();
    } catch (_) {
      // It may have died already: start a new one anyway.
    }
  }
  await start(context);
}

function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('molang.restartServer', () => restart(context)),
    { dispose: () => client && client.stop() }
  );
  return start(context);
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
