// Starts `molang lsp` for the JSON files of the open pack folders (resource and behaviour
// packs). Activates only in a workspace holding a pack `manifest.json`.
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

// The server: `molang.server.path` when set, else the binary bundled in server/, else
// `molang` on PATH.
function serverCommand(context) {
  const configured = vscode.workspace.getConfiguration('molang').get('server.path');
  if (configured) {
    return configured;
  }
  const bundled = path.join(
    context.extensionPath,
    'server',
    process.platform === 'win32' ? 'molang.exe' : 'molang'
  );
  return fs.existsSync(bundled) ? bundled : 'molang';
}

async function start(context) {
  const command = serverCommand(context);
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
    const choice = await vscode.window.showErrorMessage(
      `Molang: the language server \`${command} lsp\` could not start (${err && err.message ? err.message : err}). ` +
        'Install it (`cargo install --path molang/cli`, or a release archive on PATH) or set `molang.server.path`, then restart it.',
      'Open Settings',
      'Restart'
    );
    if (choice === 'Open Settings') {
      vscode.commands.executeCommand('workbench.action.openSettings', 'molang.server.path');
    } else if (choice === 'Restart') {
      vscode.commands.executeCommand('molang.restartServer');
    }
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
