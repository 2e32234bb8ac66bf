// Tokenizes a sample .prompty file with the extension's TextMate grammar (vscode-textmate and
// vscode-oniguruma, the libraries VS Code uses) and checks the scopes of its parts.
// Run by .ci/vscode-package with NODE_PATH pointing at those packages.
const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const wasm = fs.readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm'));
const grammarPath = path.join(__dirname, '..', 'syntaxes', 'prompty.tmLanguage.json');
// The YAML grammar VS Code ships stands in as a minimal one that marks keys.
const yaml = {
  scopeName: 'source.yaml',
  patterns: [{ match: '^\\s*([\\w-]+)(:)', captures: { 1: { name: 'entity.name.tag.yaml' } } }],
};

const text = [
  '---',
  'name: sample',
  'inputs:',
  '  question: {kind: string}',
  '---',
  'system[name=Bot]:',
  'Answer {{ question | trim }} now. {# a note #}',
  '{% if question %}yes{% endif %}',
  '# user:',
  '{{#items}}{{name}}{{/items}}',
  'user: not a role line',
];

// [line, text of the token, a scope it must have]
const expected = [
  [0, '---', 'punctuation.definition.front-matter.begin.prompty'],
  [1, 'name', 'entity.name.tag.yaml'],
  [1, 'name', 'meta.embedded.block.yaml'],
  [4, '---', 'punctuation.definition.front-matter.end.prompty'],
  [5, 'system', 'keyword.other.role.prompty'],
  [5, '[name=Bot]', 'variable.parameter.role-attributes.prompty'],
  [6, '{{', 'punctuation.definition.tag.begin.prompty'],
  [6, 'question', 'variable.other.prompty'],
  [6, 'trim', 'support.function.filter.prompty'],
  [6, 'a note', 'comment.block.jinja.prompty'],
  [7, 'if', 'keyword.control.jinja.prompty'],
  [7, 'endif', 'keyword.control.jinja.prompty'],
  [8, 'user', 'keyword.other.role.prompty'],
  [9, '#', 'keyword.control.section.mustache.prompty'],
  [9, 'items', 'variable.other.section.mustache.prompty'],
  [9, 'name', 'variable.other.prompty'],
];
// [line, text] that must not be a role word.
const notRoles = [[10, 'user']];

async function main() {
  await oniguruma.loadWASM(wasm.buffer);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => {
      if (scope === 'source.prompty-toolkit') {
        return vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath);
      }
      return scope === 'source.yaml' ? yaml : null;
    },
  });
  const grammar = await registry.loadGrammar('source.prompty-toolkit');
  let state = vsctm.INITIAL;
  const tokens = text.map((line) => {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    return r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes }));
  });
  const failures = [];
  const scopesOf = (line, word) =>
    tokens[line].filter((t) => t.text.trim() === word || t.text.includes(word)).map((t) => t.scopes);
  for (const [line, word, scope] of expected) {
    if (!scopesOf(line, word).some((s) => s.includes(scope))) {
      failures.push(`line ${line} ${JSON.stringify(word)}: no ${scope} in ${JSON.stringify(tokens[line])}`);
    }
  }
  for (const [line, word] of notRoles) {
    if (scopesOf(line, word).some((s) => s.includes('keyword.other.role.prompty'))) {
      failures.push(`line ${line} ${JSON.stringify(word)} is not a role line`);
    }
  }
  if (failures.length) {
    console.error(failures.join('\n'));
    process.exit(1);
  }
  console.log(`grammar: ${expected.length + notRoles.length} scope checks passed`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
