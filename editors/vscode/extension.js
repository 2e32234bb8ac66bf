// A minimal VS Code client for `prompty lsp`: starts the server for .prompty files and adds
// a preview command that shows the rendered messages. Everything else (diagnostics, hover,
// completion, definitions, quick fixes, formatting) comes from the server.
const vscode = require('vscode');
const { LanguageClient, ExecuteCommandRequest } = require('vscode-languageclient/node');

let client;

async function activate(context) {
  const config = vscode.workspace.getConfiguration('prompty');
  const command = config.get('path', 'prompty');
  client = new LanguageClient(
    'prompty',
    'prompty',
    { command, args: ['lsp'] },
    {
      documentSelector: [{ scheme: 'file', language: 'prompty' }, { scheme: 'untitled', language: 'prompty' }],
      initializationOptions: { allowRoots: config.get('allowRoots', []) },
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/{prompty.toml,*.json,*.yaml,*.yml,*.txt}') },
    },
  );
  const output = vscode.window.createOutputChannel('prompty preview');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('prompty.preview', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== 'prompty') {
        return;
      }
      try {
        const result = await client.sendRequest(ExecuteCommandRequest.type, {
          command: 'prompty.render',
          arguments: [editor.document.uri.toString()],
        });
        output.clear();
        output.append(result.text);
        output.show(true);
      } catch (e) {
        vscode.window.showErrorMessage(`prompty: ${e.message}`);
      }
    }),
  );
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
