// A minimal VS Code client for `prompty lsp`: starts the server for .prompty files and adds
// a preview command that shows the rendered messages. Everything else (diagnostics, hover,
// completion, definitions, quick fixes, formatting) comes from the server.
const vscode = require('vscode');
const { LanguageClient, ExecuteCommandRequest } = require('vscode-languageclient/node');

let client;

async function activate(context) {
  const config = vscode.workspace.getConfiguration('promptyToolkit');
  const command = config.get('path', 'prompty');
  client = new LanguageClient(
    'promptyToolkit',
    'prompty-toolkit',
    { command, args: ['lsp'] },
    {
      documentSelector: [
        { scheme: 'file', language: 'prompty-toolkit' },
        { scheme: 'untitled', language: 'prompty-toolkit' },
      ],
      initializationOptions: { allowRoots: config.get('allowRoots', []) },
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/{prompty.toml,*.json,*.yaml,*.yml,*.txt}') },
    },
  );
  const output = vscode.window.createOutputChannel('prompty-toolkit preview');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('promptyToolkit.preview', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== 'prompty-toolkit') {
        return;
      }
      try {
        const result = await client.sendRequest(ExecuteCommandRequest.type, {
          command: 'prompty.render',
          arguments: [editor.document.uri.toString()],
        });
        output.clear();
        // Required inputs without a value render with placeholders: say so first.
        if (result.note) {
          output.appendLine(`(${result.note})`);
          output.appendLine('');
        }
        output.append(result.text);
        output.show(true);
      } catch (e) {
        vscode.window.showErrorMessage(`prompty-toolkit: ${e.message}`);
      }
    }),
  );
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
