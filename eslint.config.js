import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'charts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // Limits that keep source functions readable, at values the code meets after its split into
    // phases (docs/architecture.md). A function past one of them is split; the few that stay past
    // one say why with an eslint-disable comment where they are. Tests are exempt: a describe block
    // is long because it holds many cases, not because it does many things.
    files: ['src/**/*.ts'],
    rules: {
      // About two screens. Route plugins register one route per statement; parsers read one field
      // per line; past 100 lines a function has phases that can be named.
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
      // The hot loops of the index and the scorer take typed arrays and scalars positionally: an
      // options object there would be an allocation per call. Eight covers them; anything colder
      // with more than that takes an object.
      'max-params': ['error', 8],
      // Hand-written lexers and protocol parsers branch per character class or token; 30 admits one
      // such switch, and deeper nesting of decisions than that is split.
      complexity: ['error', 30],
      'max-depth': ['error', 5],
      // CONTRIBUTING's "one concept a file" in lines: a file past 600 holds more than one.
      'max-lines': ['error', { max: 600, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', module: 'writable' } },
  },
  {
    // The examples' small Node scripts, and the search page's script, which runs in a browser.
    files: ['examples/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly' } },
  },
  {
    files: ['examples/search-ui/app.js'],
    languageOptions: { globals: { document: 'readonly', location: 'readonly', fetch: 'readonly', URLSearchParams: 'readonly', process: 'off', module: 'off' } },
  },
);
